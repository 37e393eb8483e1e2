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
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gavel::runtime::detail {

namespace {

using namespace json_read;

// Layout of a document block:
//   DocumentHeader | text, padded for simdjson | container nodes ...
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
// text offset of its opening bracket, then one Child per non-empty child
// container, in order. A container of n >= 1 entries has room for this
// (8 + 8 * children <= 16 * n).
struct LazyInfo {
    std::uint32_t open;
    std::uint32_t children;
};
struct Child {
    std::uint32_t node;   // byte offset of its node in the block
    std::uint32_t close;  // text offset of its closing bracket
};
static_assert(sizeof(LazyInfo) == 8 && sizeof(Child) == 8);

// ---- up front: validate, and lay out the containers' nodes ------------------------

struct OpenContainer {
    std::uint32_t open;            // text offset of the bracket
    std::uint32_t members = 0;     // entries read so far
    std::uint32_t string_bytes = 0;
    std::uint32_t children_begin;  // first of its children in `children`
    bool object;
};

struct LayoutState {
    std::vector<OpenContainer> open;
    std::vector<Child> children;
};

class Layout {
public:
    Layout(std::string_view text, const Limits& limits) : text_(text), limits_(limits) {}
    Layout(const Layout&) = delete;
    Layout& operator=(const Layout&) = delete;
    ~Layout() { std::free(block_); }

    bool build(Stage1 stage1, Value& out) {
        std::size_t text_bytes = round16(text_.size() + simdjson::SIMDJSON_PADDING);
        nodes_at_ = kTextAt + text_bytes;
        // Nodes take about 6.5 times the text in a Kubernetes object (every
        // string is a 24-byte header plus its bytes, every member a 32-byte
        // entry): one allocation, rarely grown, trimmed below.
        cap_ = nodes_at_ + 7 * text_.size() + 256;
        block_ = static_cast<char*>(std::malloc(cap_));
        if (!block_) return false;
        used_ = nodes_at_;
        new (block_) DocumentHeader{};
        std::memcpy(block_ + kTextAt, text_.data(), text_.size());
        std::memset(block_ + kTextAt + text_.size(), 0, text_bytes - text_.size());
        if (!stage1(block_ + kTextAt, text_.size(), idx_, n_)) return false;
        if (!valid_escapes() || !run()) return false;
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

    // Every escape sequence in the text is one JSON allows. Backslashes
    // outside strings fail elsewhere (as part of a scalar token).
    bool valid_escapes() const noexcept {
        const char* p = text();
        const char* e = end();
        while ((p = static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(e - p))))) {
            switch (p[1]) {
            case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': p += 2; break;
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

    // The eager reader's checks, without building values. The text, the
    // index and the open container are kept in locals: this loop visits
    // every structural of the document.
    bool run() {
        LayoutState& st = state();
        std::vector<OpenContainer>& open = st.open;
        open.clear();
        st.children.clear();
        const std::uint32_t* const idx = idx_;
        const std::uint32_t n = n_;
        const char* txt = text();
        char first = txt[idx[0]];
        // Scalars and empty containers at the root: nothing to defer.
        if (first != '{' && first != '[') return false;
        char close_root = first == '{' ? '}' : ']';
        if (txt[idx[1]] == close_root || limits_.max_depth == 0 || txt[idx[n - 1]] != close_root) return false;
        OpenContainer* top = nullptr;
        // A string at index k: its node's bytes (its raw length bounds the
        // unescaped one). The root is a container, so k + 1 < n.
        auto string = [&](std::uint32_t k) {
            const char* start = txt + idx[k] + 1;
            const char* e = closing_quote_before(start, txt + idx[k + 1]);
            if (!e) return false;
            top->string_bytes += static_cast<std::uint32_t>(string_node_bytes(static_cast<std::size_t>(e - start)));
            return true;
        };
        // A key at index i and the ':' after it; i moves to the value.
        auto key = [&](std::uint32_t& k) {
            if (txt[idx[k]] != '"' || !string(k) || txt[idx[k + 1]] != ':') return false;
            k += 2;
            return true;
        };
        std::uint32_t i = 0;
        for (;;) {
            char c = txt[idx[i]];
            switch (c) {
            case '{':
            case '[': {
                bool object = c == '{';
                if (open.size() >= limits_.max_depth) return false;
                if (txt[idx[i + 1]] == (object ? '}' : ']')) {  // empty: no node
                    i += 2;
                    break;
                }
                open.push_back({idx[i], 0, 0, static_cast<std::uint32_t>(st.children.size()), object});
                top = &open.back();
                ++i;
                if (object && !key(i)) return false;
                continue;
            }
            case '"':
                if (!string(i)) return false;
                ++i;
                break;
            case 't': case 'f': case 'n': case '-':
            case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9': {
                Value v;
                if (!read_scalar(scalar_token(txt + idx[i], txt + idx[i + 1]), v)) return false;
                ++i;
                break;
            }
            default: return false;
            }
            // After a value: close containers, or go on to the next item.
            for (;;) {
                char sep = txt[idx[i]];
                ++top->members;
                if (sep == ',') {
                    ++i;
                    if (top->object && !key(i)) return false;
                    break;
                }
                if (sep != (top->object ? '}' : ']')) return false;
                if (!close(idx[i], st)) return false;
                txt = text();  // the block may have moved
                ++i;
                if (open.empty()) return i == n;
                top = &open.back();
            }
        }
    }

    // The container on top closes at text offset `close_at`: its node is laid
    // out, lazy, with where to find its text and its children's nodes.
    bool close(std::uint32_t close_at, LayoutState& st) {
        OpenContainer c = st.open.back();
        st.open.pop_back();
        std::size_t entry = c.object ? sizeof(ObjectEntry) : sizeof(Value);
        std::size_t bytes = sizeof(ObjectNode) + c.members * entry + c.string_bytes + (c.string_bytes ? kStringSlack : 0);
        static_assert(sizeof(ObjectNode) == sizeof(SeqNode));
        if (!reserve(bytes)) return false;
        std::size_t offset = used_;
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
        auto kids = static_cast<std::uint32_t>(st.children.size() - c.children_begin);
        LazyInfo info{c.open, kids};
        std::memcpy(entries, &info, sizeof info);
        if (kids) {
            std::memcpy(entries + sizeof info, st.children.data() + c.children_begin, kids * sizeof(Child));
            st.children.resize(c.children_begin);
        }
        if (st.open.empty()) {
            root_ = offset;
            root_object_ = c.object;
        } else {
            st.children.push_back({static_cast<std::uint32_t>(offset), close_at});
        }
        return true;
    }

    bool reserve(std::size_t bytes) {
        if (used_ + bytes > kMaxBlock) return false;
        if (used_ + bytes <= cap_) return true;
        std::size_t cap = std::min(kMaxBlock, std::max(cap_ * 2, used_ + bytes));
        char* grown = static_cast<char*>(std::realloc(block_, cap));
        if (!grown) return false;
        block_ = grown;  // only offsets are kept while laying out
        cap_ = cap;
        return true;
    }

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
// needs no checks.
class EntryReader {
public:
    EntryReader(DocumentHeader* doc, const Child* kids, char* strings)
        : doc_(doc), text_(reinterpret_cast<const char*>(doc) + kTextAt), kids_(kids), strings_(strings) {}

    const char* text() const noexcept { return text_; }

    static const char* skip_ws(const char* p) noexcept {
        while (is_ws(*p)) ++p;
        return p;
    }

    // The value at p; p moves past it.
    Value value(const char*& p) {
        switch (*p) {
        case '"': return string(p);
        case '{':
        case '[': {
            bool object = *p == '{';
            Value::Tag tag = object ? Value::Tag::Object : Value::Tag::Array;
            const char* q = skip_ws(p + 1);
            if (*q == (object ? '}' : ']')) {
                p = q + 1;
                return Value::adopt(tag, nullptr);
            }
            const Child& c = kids_[next_kid_++];
            p = text_ + c.close + 1;
            return Value::adopt(tag, reinterpret_cast<Node*>(reinterpret_cast<char*>(doc_) + c.node));
        }
        case 't': p += 4; return Value::boolean(true);
        case 'f': p += 5; return Value::boolean(false);
        case 'n': p += 4; return Value();
        default: return number(p);
        }
    }

    // The string whose opening quote is at p; p moves past its closing quote.
    Value string(const char*& p) {
        const char* start = p + 1;
        bool escaped = false;
        const char* e = closing_quote(start, escaped);
        p = e + 1;
        std::size_t n = static_cast<std::size_t>(e - start);
        if (n == 0) return Value::string({});
        auto* node = new (strings_) StringNode(n);
        node->flags.store(kInDocument, std::memory_order_relaxed);
        node->arena_offset = static_cast<std::uint16_t>((strings_ - reinterpret_cast<char*>(doc_)) >> 3);
        char* data = node->data();
        if (escaped) {
            UnescapeError err;
            n = static_cast<std::size_t>(unescape_into(start, find_backslash(start, e), e, data, err) - data);
            node->size = n;
        } else if (n <= 16) {
            std::memcpy(data, start, 16);  // the text is padded; the string space has slack
        } else {
            std::memcpy(data, start, n);
        }
        data[n] = '\0';
        strings_ += string_node_bytes(n);
        return Value::adopt(Value::Tag::String, node);
    }

private:
    static const char* closing_quote(const char* p, bool& escaped) noexcept {
#if defined(__SSE2__)
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
        for (;;) {
            __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
            unsigned q = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)));
            unsigned b = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, bslash)));
            if ((q | b) == 0) {
                p += 16;
                continue;
            }
            unsigned first = static_cast<unsigned>(__builtin_ctz(q | b));
            if (q & (1u << first)) return p + first;
            escaped = true;
            p += first + 2;  // the escaped byte is never the end
        }
#else
        for (;;) {
            if (*p == '"') return p;
            if (*p == '\\') {
                escaped = true;
                p += 2;
            } else {
                ++p;
            }
        }
#endif
    }

    Value number(const char*& p) {
        const char* start = p;
        while ((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.' || *p == 'e' || *p == 'E') ++p;
        Value v;
        read_number({start, static_cast<std::size_t>(p - start)}, v);
        // Its own node (a big or literal number) belongs to the document.
        if (const Node* n = v.node()) {
            auto* link = new DocumentHeader::External{const_cast<Node*>(n), doc_->externals.load(std::memory_order_relaxed)};
            while (!doc_->externals.compare_exchange_weak(link->next, link, std::memory_order_release,
                                                          std::memory_order_relaxed)) {
            }
            // The list owns v's count now: forget v without releasing it.
            Value inner = Value::adopt(v.tag(), const_cast<Node*>(n));
            new (&v) Value();
            return inner;
        }
        return v;
    }

    DocumentHeader* doc_;
    const char* text_;
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
    const char* p = reader.text() + info.open + 1;
    if (!object) {
        auto* out = reinterpret_cast<Value*>(entries);
        for (std::size_t k = 0; k < count; ++k) {
            p = EntryReader::skip_ws(p);
            new (out + k) Value(reader.value(p));
            p = EntryReader::skip_ws(p) + 1;  // ',' or ']'
        }
        return;
    }
    ObjectEntry* items = obj->data();
    for (std::size_t k = 0; k < count; ++k) {
        p = EntryReader::skip_ws(p);
        Value key = reader.string(p);
        p = EntryReader::skip_ws(EntryReader::skip_ws(p) + 1);  // past ':'
        Value value = reader.value(p);
        new (items + k) ObjectEntry{std::move(key), std::move(value)};
        p = EntryReader::skip_ws(p) + 1;  // ',' or '}'
    }
    // Dropped duplicates need nothing: their strings live in the block, their
    // numbers in the document's list.
    if (order_entries(items, count, scratch.order, [](std::uint32_t) {})) return;
    scratch.entries.resize(count * sizeof(ObjectEntry));
    std::memcpy(scratch.entries.data(), static_cast<const void*>(items), count * sizeof(ObjectEntry));
    const auto* read = reinterpret_cast<const ObjectEntry*>(scratch.entries.data());
    const std::vector<std::uint32_t>& keep = scratch.order.keep;
    for (std::size_t j = 0; j < keep.size(); ++j)
        std::memcpy(static_cast<void*>(items + j), static_cast<const void*>(read + keep[j]), sizeof(ObjectEntry));
    obj->size = keep.size();
}

} // namespace

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

} // namespace gavel::runtime::detail
