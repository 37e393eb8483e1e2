#include "runtime/lazy_json.hpp"

#include "runtime/json_read.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <thread>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gavel::runtime::detail {

namespace {

using namespace json_read;

// Layout of a document block:
//   DocumentHeader | text, padded for simdjson | structural index | container nodes ...
// The structural index (stage 1's, as 16-bit text offsets: the text is under
// 64 KiB) lets a container be built token by token, without rescanning text.
// A node's arena_offset is its distance to the header in 8-byte units (16
// bits), which bounds the block.
constexpr std::size_t kMaxBlock = (std::size_t(1) << 19) - 8;
constexpr std::size_t kTextAt = sizeof(DocumentHeader);
// Past the last string of a container: new strings are filled with one
// 16-byte copy when short.
constexpr std::size_t kStringSlack = 16;

constexpr std::size_t round8(std::size_t n) { return (n + 7) & ~std::size_t(7); }
constexpr std::size_t round16(std::size_t n) { return (n + 15) & ~std::size_t(15); }

// Bytes a string node of `len` bytes takes in a container's string space.
constexpr std::size_t string_node_bytes(std::size_t len) { return len ? round8(sizeof(StringNode) + len + 1) : 0; }

// While a container is lazy, its entry space holds where to read it: the
// token of its opening bracket, then one Child per non-empty child
// container, in order. A container of n >= 1 entries has room for this
// (8 + 8 * children <= 16 * n).
struct LazyInfo {
    std::uint32_t open;  // token index
    std::uint32_t children;
};
struct Child {
    std::uint32_t node;   // byte offset of its node in the block
    std::uint32_t close;  // token index of its closing bracket
};
using TextOffset = std::uint16_t;
static_assert(kLazyJsonBelow <= 65536, "text offsets are 16 bits");
static_assert(sizeof(LazyInfo) == 8 && sizeof(Child) == 8);

// ---- up front: validate, and lay out the containers' nodes ------------------------

struct OpenContainer {
    std::uint32_t open;                // token index of the bracket
    std::uint32_t members = 0;         // entries read so far
    std::uint32_t strings = 0;         // keys and string values read so far
    std::uint32_t children_text = 0;   // text bytes its non-empty child containers span
    std::uint32_t children_begin = 0;  // first of its children in `children`
    bool object = false;
};

struct LayoutState {
    std::vector<OpenContainer> open;
    std::vector<Child> children;
    std::vector<char> tokens;  // the first byte of each structural, then padding
};

// Two or four token bytes, to compare with a pattern of tokens (pattern2, pattern4).
inline std::uint16_t token_pair(const char* t) noexcept { return load_unaligned<std::uint16_t>(t); }
inline std::uint32_t token_quad(const char* t) noexcept { return load_unaligned<std::uint32_t>(t); }

// tok[k] = text[index[k]] for k < n: the first byte of each structural.
void gather_tokens_scalar(const char* text, const std::uint32_t* index, std::uint32_t n, char* tok) noexcept {
#pragma GCC unroll 4
    for (std::uint32_t k = 0; k < n; ++k) tok[k] = text[index[k]];
}

#if defined(__x86_64__) && defined(__GNUC__)
// Eight at a time with AVX2 (chosen at run time): four-byte loads at the
// offsets, then their low bytes. The text is padded, so a load at its last
// byte stays in the block.
[[gnu::target("avx2")]] void gather_tokens_avx2(const char* text, const std::uint32_t* index, std::uint32_t n,
                                                char* tok) noexcept {
    const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                               -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i pack = _mm256_setr_epi32(0, 4, 1, 1, 1, 1, 1, 1);
    std::uint32_t k = 0;
    for (; k + 8 <= n; k += 8) {
        __m256i at = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + k));
        __m256i words = _mm256_i32gather_epi32(reinterpret_cast<const int*>(text), at, 1);
        __m256i bytes = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(words, low_bytes), pack);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(tok + k), _mm256_castsi256_si128(bytes));
    }
    gather_tokens_scalar(text, index + k, n - k, tok + k);
}
#endif

// The gather is one load per token at scattered offsets; with AVX2 it takes
// a seventh less of the layout (10-container review: 2.21 -> 2.05 us to parse).
void gather_tokens(const char* text, const std::uint32_t* index, std::uint32_t n, char* tok) noexcept {
#if defined(__x86_64__) && defined(__GNUC__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return gather_tokens_avx2(text, index, n, tok);
#endif
    gather_tokens_scalar(text, index, n, tok);
}

class Layout {
public:
    Layout(std::string_view text, const Limits& limits) : text_(text), limits_(limits) {}
    Layout(const Layout&) = delete;
    Layout& operator=(const Layout&) = delete;
    ~Layout() { std::free(block_); }

    bool build(Stage1 stage1, Value& out) {
        std::size_t text_bytes = round16(text_.size() + simdjson::SIMDJSON_PADDING);
        nodes_at_ = kTextAt + text_bytes;
        // Nodes and the index take about 6.7 times the text in a Kubernetes
        // object (every string is a 24-byte header plus its bytes, every
        // member a 32-byte entry, every token 2 bytes of index): one
        // allocation, rarely grown, trimmed below.
        cap_ = std::min(kMaxBlock, nodes_at_ + 7 * text_.size() + 256);
        block_ = static_cast<char*>(std::malloc(cap_));
        if (!block_) return false;
        used_ = nodes_at_;
        new (block_) DocumentHeader{};
        std::memcpy(block_ + kTextAt, text_.data(), text_.size());
        std::memset(block_ + kTextAt + text_.size(), 0, text_bytes - text_.size());
        if (!stage1(block_ + kTextAt, text_.size(), idx_, n_)) return false;
        if (!valid_escapes() || !keep_index() || !run()) return false;
        // Give back what the estimate left over when it is most of the block.
        // Not always: a block over malloc's mmap threshold that is trimmed
        // and then freed lowers that threshold below the next document's
        // first allocation, so every request would map and fault in fresh
        // pages (100-container review: 111 -> 142 us per decision).
        if (cap_ - used_ > std::max<std::size_t>(used_, 4096))
            if (char* shrunk = static_cast<char*>(std::realloc(block_, used_))) block_ = shrunk;
        out = Value::adopt(root_object_ ? Value::Tag::Object : Value::Tag::Array,
                           reinterpret_cast<Node*>(block_ + root_));
        block_ = nullptr;  // owned by `out` now
        return true;
    }

private:
    const char* text() const noexcept { return block_ + kTextAt; }
    const char* end() const noexcept { return text() + text_.size(); }

    // The structural index goes into the block, before the nodes.
    bool keep_index() {
        std::size_t bytes = round8((n_ + 1) * sizeof(TextOffset));
        if (!reserve(bytes)) return false;
        auto* index = reinterpret_cast<TextOffset*>(block_ + used_);
        for (std::uint32_t k = 0; k < n_; ++k) index[k] = static_cast<TextOffset>(idx_[k]);
        reinterpret_cast<DocumentHeader*>(block_)->index_at = static_cast<std::uint32_t>(used_);
        used_ += bytes;
        return true;
    }

    // Every escape sequence in the text is one JSON allows. Backslashes
    // outside strings fail elsewhere (as part of a scalar token).
    bool valid_escapes() const noexcept {
        const char* p = text();
        const char* e = end();
        while ((p = static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(e - p))))) {
            switch (p[1]) {
                case '"':
                case '\\':
                case '/':
                case 'b':
                case 'f':
                case 'n':
                case 'r':
                case 't': p += 2; break;
                case 'u': {
                    std::uint32_t cp;
                    if (!hex4(p + 2, e, cp)) return false;
                    p += 6;
                    break;
                }
                default: return false;
            }
            if (p >= e) return false;
        }
        return true;
    }

    // The eager reader's checks, without building values. The grammar is
    // checked on the token string: the first byte of each structural, so a
    // member such as "name":"app" followed by a comma is one 4-byte compare.
    // Strings need no look: stage 1 found their bounds, and nothing but
    // whitespace may follow a closing quote (anything else is a token).
    bool run() {
        LayoutState& st = state();
        const std::uint32_t* const idx = idx_;
        const std::uint32_t n = n_;
        // A container takes at least two tokens: the stacks are sized once,
        // so the loop below never checks their capacity.
        const std::size_t depth_cap = std::min<std::size_t>(limits_.max_depth, n / 2 + 1);
        if (st.open.size() < depth_cap) st.open.resize(depth_cap);
        if (st.children.size() < n / 2 + 1) st.children.resize(n / 2 + 1);
        if (st.tokens.size() < n + 8) st.tokens.resize(n + 8);
        OpenContainer* const stack = st.open.data();
        OpenContainer* const stack_end = stack + depth_cap;
        Child* const kids = st.children.data();
        std::size_t kids_n = 0;
        char* const tok = st.tokens.data();
        gather_tokens(text(), idx, n, tok);
        std::memset(tok + n, 0, 8);
        // Scalars and empty containers at the root: nothing to defer.
        if (tok[0] != '{' && tok[0] != '[') return false;
        char close_root = tok[0] == '{' ? '}' : ']';
        if (tok[1] == close_root || depth_cap == 0 || tok[n - 1] != close_root) return false;
        OpenContainer* top = stack - 1;
        std::uint32_t i = 0;
    value:  // a value starts at token i
        switch (tok[i]) {
            case '{':
            case '[': {
                bool object = tok[i] == '{';
                if (top + 1 == stack_end) return false;    // too deep
                if (tok[i + 1] == (object ? '}' : ']')) {  // empty: no node
                    i += 2;
                    goto after_value;
                }
                *++top = {i, 0, 0, 0, static_cast<std::uint32_t>(kids_n), object};
                ++i;
                if (object) goto key;
                goto value;
            }
            case '"':
                ++top->strings;
                if (!top->object && token_pair(tok + i) == pattern2("\",")) {  // in an array, and more follow
                    ++top->members;
                    i += 2;
                    goto value;
                }
                ++i;
                goto after_value;
            case 't':
            case 'f':
            case 'n':
            case '-':
            case '0':
            case '1':
            case '2':
            case '3':
            case '4':
            case '5':
            case '6':
            case '7':
            case '8':
            case '9': {
                Value v;
                if (!read_scalar(scalar_token(text() + idx[i], text() + idx[i + 1]), v)) return false;
                ++i;
                goto after_value;
            }
            default: return false;
        }
    key:  // a member starts at token i
        switch (token_quad(tok + i)) {
            case pattern4("\":\","):  // "key":"value", then another member
                top->strings += 2;
                ++top->members;
                i += 4;
                goto key;
            case pattern4("\":\"}"):  // "key":"value" closing the object
                top->strings += 2;
                i += 3;
                goto after_value;
            default:
                if (tok[i] != '"' || tok[i + 1] != ':') return false;
                ++top->strings;
                i += 2;
                goto value;
        }
    after_value:  // token i follows a value
        ++top->members;
        if (tok[i] == ',') {
            ++i;
            if (top->object) goto key;
            goto value;
        }
        if (tok[i] != (top->object ? '}' : ']')) return false;
        {
            // The container on top closes at token i: its node is laid out,
            // and its parent (if any) gets it as a child.
            const OpenContainer c = *top;
            std::size_t span = idx[i] - idx[c.open] + 1;
            std::size_t offset;
            if (!lay_out(c, span, kids + c.children_begin, kids_n - c.children_begin, offset)) return false;
            kids_n = c.children_begin;
            if (top == stack) {
                root_ = offset;
                root_object_ = c.object;
                return i + 1 == n;
            }
            kids[kids_n++] = {static_cast<std::uint32_t>(offset), i};
            --top;
            top->children_text += static_cast<std::uint32_t>(span);
        }
        ++i;
        goto after_value;
    }

    // Lays out the node of a container that spans `span` bytes of text:
    // lazy, with where to find its tokens and its children's nodes.
    bool lay_out(const OpenContainer& c, std::size_t span, const Child* kids, std::size_t kid_count,
                 std::size_t& offset) {
        std::size_t entry = c.object ? sizeof(ObjectEntry) : sizeof(Value);
        // Its strings' nodes: each takes at most its raw length plus 32
        // bytes (string_node_bytes), and the raw lengths add up to less than
        // the text the container spans outside its children.
        std::size_t string_bytes =
            c.strings ? round8(span - c.children_text + 32 * std::size_t(c.strings) + kStringSlack) : 0;
        std::size_t bytes = sizeof(ObjectNode) + c.members * entry + string_bytes;
        static_assert(sizeof(ObjectNode) == sizeof(SeqNode));
        if (!reserve(bytes)) return false;
        offset = used_;
        used_ += bytes;
        Node* node;
        char* entries;
        if (c.object) {
            auto* o = new (block_ + offset) ObjectNode(c.members);
            node = o;
            entries = reinterpret_cast<char*>(o->data());
        } else {
            auto* a = new (block_ + offset) SeqNode(NodeType::Array, c.members);
            node = a;
            entries = reinterpret_cast<char*>(a->data());
        }
        node->flags.store(kInDocument | kLazy, std::memory_order_relaxed);
        node->arena_offset = static_cast<std::uint16_t>(offset >> 3);
        LazyInfo info{c.open, static_cast<std::uint32_t>(kid_count)};
        std::memcpy(entries, &info, sizeof info);
        // Few children as a rule: copied one by one, not through memcpy.
        for (std::size_t k = 0; k < kid_count; ++k)
            std::memcpy(entries + sizeof info + k * sizeof(Child), kids + k, sizeof(Child));
        return true;
    }

    // Room for `bytes` more: grows the block (up to kMaxBlock).
    [[gnu::noinline]] bool grow(std::size_t bytes) {
        if (used_ + bytes > kMaxBlock) return false;
        std::size_t cap = std::min(kMaxBlock, std::max(cap_ * 2, used_ + bytes));
        char* grown = static_cast<char*>(std::realloc(block_, cap));
        if (!grown) return false;
        block_ = grown;  // only offsets are kept while laying out
        cap_ = cap;
        return true;
    }

    bool reserve(std::size_t bytes) { return used_ + bytes <= cap_ || grow(bytes); }

    static LayoutState& state() {
        thread_local LayoutState st;
        return st;
    }

    std::string_view text_;
    const Limits& limits_;
    char* block_ = nullptr;
    std::size_t cap_ = 0, used_ = 0, nodes_at_ = 0;
    const std::uint32_t* idx_ = nullptr;
    std::uint32_t n_ = 0;
    std::size_t root_ = 0;
    bool root_object_ = false;
};

// ---- on first access: build one container's entries ---------------------------

// The text was validated when the document was laid out, so reading it
// needs no checks. Values are read token by token from the structural index.
class EntryReader {
public:
    EntryReader(DocumentHeader* doc, const Child* kids, char* strings)
        : doc_(doc), text_(reinterpret_cast<const char*>(doc) + kTextAt),
          index_(reinterpret_cast<const TextOffset*>(reinterpret_cast<const char*>(doc) + doc->index_at)), kids_(kids),
          strings_(strings) {}

    const char* at(std::uint32_t t) const noexcept { return text_ + index_[t]; }

    // The value at token t; t moves to the token after it.
    Value value(std::uint32_t& t) {
        const char* p = at(t);
        switch (*p) {
            case '"': return string(t);
            case '{':
            case '[': {
                bool object = *p == '{';
                Value::Tag tag = object ? Value::Tag::Object : Value::Tag::Array;
                if (*at(t + 1) == (object ? '}' : ']')) {
                    t += 2;
                    return Value::adopt(tag, nullptr);
                }
                const Child& c = kids_[next_kid_++];
                t = c.close + 1;
                return Value::adopt(tag, reinterpret_cast<Node*>(reinterpret_cast<char*>(doc_) + c.node));
            }
            case 't': ++t; return Value::boolean(true);
            case 'f': ++t; return Value::boolean(false);
            case 'n': ++t; return Value();
            default: {
                std::string_view token = scalar_token(p, at(t + 1));
                ++t;
                return number(token);
            }
        }
    }

    // The string at token t; t moves to the token after it.
    Value string(std::uint32_t& t) {
        const char* start = at(t) + 1;
        const char* next = at(t + 1);
        ++t;
        // Stage 1 allows only whitespace between the closing quote and the
        // next token.
        const char* e = closing_quote_before(start, next);
        auto n = static_cast<std::size_t>(e - start);
        if (n == 0) return Value::adopt(Value::Tag::String, nullptr);
        char* node_at = strings_;
        auto* node = new (node_at) StringNode(n);
        node->flags.store(kInDocument, std::memory_order_relaxed);
        node->arena_offset = static_cast<std::uint16_t>((node_at - reinterpret_cast<char*>(doc_)) >> 3);
        char* data = node->data();
        if (n <= 16 && !has_backslash16(start, n)) {
            std::memcpy(data, start, 16);  // the text is padded; the string space has slack
            data[n] = '\0';
        } else {
            n = copy_string(start, e, data);
            node->size = n;
        }
        strings_ += string_node_bytes(n);
        return Value::adopt(Value::Tag::String, node);
    }

private:
    // Whether the n <= 16 bytes at p (readable 16) hold a backslash.
    static bool has_backslash16(const char* p, std::size_t n) noexcept { return find_backslash(p, p + n) != p + n; }

    // Copies, unescaping, the string content [start, e) to `data`, which
    // has room; returns the length written (then a NUL).
    [[gnu::noinline]] static std::size_t copy_string(const char* start, const char* e, char* data) noexcept {
        const char* bs = find_backslash(start, e);
        std::size_t n;
        if (bs != e) {
            UnescapeError err;
            n = static_cast<std::size_t>(unescape_into(start, bs, e, data, err) - data);
        } else {
            n = static_cast<std::size_t>(e - start);
            std::memcpy(data, start, n);
        }
        data[n] = '\0';
        return n;
    }

    [[gnu::noinline]] Value number(std::string_view token) {
        Value v;
        read_number(token, v);
        // Its own node (a big or literal number) belongs to the document.
        if (const Node* n = v.node()) {
            auto* link =
                new DocumentHeader::External{const_cast<Node*>(n), doc_->externals.load(std::memory_order_relaxed)};
            while (!doc_->externals.compare_exchange_weak(link->next, link, std::memory_order_release,
                                                          std::memory_order_relaxed)) {}
            // The list owns v's count now: forget v without releasing it.
            Value inner = Value::adopt(v.tag(), const_cast<Node*>(n));
            new (&v) Value();
            return inner;
        }
        return v;
    }

    DocumentHeader* doc_;
    const char* text_;
    const TextOffset* index_;
    const Child* kids_;
    std::size_t next_kid_ = 0;
    char* strings_;
};

// Raw scratch for one container's children and for reordering its entries
// (values inside a document are never destroyed one by one, so no Value
// destructor may run on them).
struct BuildScratch {
    std::vector<Child> kids;
    EntryOrder order;
    std::vector<std::byte> entries;
};

BuildScratch& build_scratch() {
    thread_local BuildScratch s;
    return s;
}

void build_entries(Node* n) {
    DocumentHeader* doc = document_of(n);
    BuildScratch& scratch = build_scratch();
    bool object = n->type == NodeType::Object;
    ObjectNode* obj = nullptr;
    std::size_t count;
    char* entries;
    if (object) {
        obj = static_cast<ObjectNode*>(n);
        count = obj->size;
        entries = reinterpret_cast<char*>(obj->data());
    } else {
        auto* seq = static_cast<SeqNode*>(n);
        count = seq->size;
        entries = reinterpret_cast<char*>(seq->data());
    }
    LazyInfo info;
    std::memcpy(&info, entries, sizeof info);
    // The entries are written over this list: copy it first (most
    // containers have few children; the rest use the thread's buffer).
    Child local[32];
    Child* kids = local;
    if (info.children > std::size(local)) {
        scratch.kids.resize(info.children);
        kids = scratch.kids.data();
    }
    if (info.children) std::memcpy(kids, entries + sizeof info, info.children * sizeof(Child));
    char* strings = entries + count * (object ? sizeof(ObjectEntry) : sizeof(Value));
    EntryReader reader(doc, kids, strings);
    std::uint32_t t = info.open + 1;
    if (!object) {
        auto* out = reinterpret_cast<Value*>(entries);
        for (std::size_t k = 0; k < count; ++k) {
            new (out + k) Value(reader.value(t));
            ++t;  // past ',' or ']'
        }
        return;
    }
    // Entries are read into the thread's buffer, then copied into the node
    // in key order.
    scratch.entries.resize(count * sizeof(ObjectEntry));
    auto* read = reinterpret_cast<ObjectEntry*>(scratch.entries.data());
    for (std::size_t k = 0; k < count; ++k) {
        Value key = reader.string(t);
        ++t;  // past ':'
        Value value = reader.value(t);
        new (read + k) ObjectEntry{std::move(key), std::move(value)};
        ++t;  // past ',' or '}'
    }
    ObjectEntry* items = obj->data();
    // Dropped duplicates need nothing: their strings live in the block, their
    // numbers in the document's list.
    if (order_entries(read, count, scratch.order, [](std::uint32_t) {})) {
        std::memcpy(static_cast<void*>(items), static_cast<const void*>(read), count * sizeof(ObjectEntry));
        return;
    }
    const std::vector<std::uint32_t>& keep = scratch.order.keep;
    for (std::size_t j = 0; j < keep.size(); ++j)
        std::memcpy(static_cast<void*>(items + j), static_cast<const void*>(read + keep[j]), sizeof(ObjectEntry));
    obj->size = keep.size();
}

}  // namespace

void materialize(const Node* node) noexcept {
    Node* n = const_cast<Node*>(node);
    std::uint8_t f = n->flags.load(std::memory_order_acquire);
    unsigned spins = 0;
    for (;;) {
        if (!(f & (kLazy | kBusy))) return;
        if (f & kLazy) {
            if (n->flags.compare_exchange_weak(f, static_cast<std::uint8_t>((f & ~kLazy) | kBusy),
                                               std::memory_order_acquire, std::memory_order_acquire))
                break;
            continue;
        }
        // Another thread is building it; that takes well under a microsecond.
        if (++spins < 64) {
#if defined(__SSE2__)
            _mm_pause();
#endif
        } else {
            std::this_thread::yield();
        }
        f = n->flags.load(std::memory_order_acquire);
    }
    build_entries(n);
    n->flags.store(kInDocument, std::memory_order_release);
}

void retain_document(const Node* n) noexcept { document_of(n)->refs.fetch_add(1, std::memory_order_relaxed); }

void release_document(const Node* n) noexcept {
    DocumentHeader* d = document_of(n);
    if (d->refs.load(std::memory_order_acquire) == 1 || d->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        destroy_document(d);
}

void destroy_document(DocumentHeader* d) noexcept {
    for (DocumentHeader::External* e = d->externals.load(std::memory_order_acquire); e;) {
        DocumentHeader::External* next = e->next;
        release(e->node);
        delete e;
        e = next;
    }
    d->~DocumentHeader();
    std::free(d);
}

bool read_json_lazily(std::string_view text, const Limits& limits, Stage1 stage1, Value& out) {
    if (text.empty() || text.size() >= kLazyJsonBelow) return false;
    Layout layout(text, limits);
    return layout.build(stage1, out);
}

}  // namespace gavel::runtime::detail
