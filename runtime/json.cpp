#include "runtime/json.hpp"

#include "runtime/hash.hpp"
#include "runtime/node_arena.hpp"
#include "runtime/json_read.hpp"
#include "runtime/lazy_json.hpp"
#include "runtime/unaligned_load.hpp"
#include "support/json_string.hpp"
#include "support/utf8.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace gavel::runtime {

namespace {

using namespace json_read;
using detail::NodeArena;
using detail::ObjectNode;
using detail::SeqNode;
using detail::StringNode;

// ---- reading ------------------------------------------------------------------------
//
// simdjson's stage 1 (runtime-dispatched SIMD: validates UTF-8, finds string
// bounds, rejects unescaped control characters in strings, and indexes every
// structural character and scalar start) followed by our own stage 2 over
// that index, building Values directly: containers are collected on one
// reused stack and become arena nodes (node_arena.hpp) when they close; in
// documents of 64 KiB or more, object keys are interned per document, so a key
// repeated in every list item is one shared node. Neither simdjson's DOM tape
// nor On-Demand's iterator is used: both cost more than building the Values,
// and we need the number text and our own string semantics (lone surrogates)
// anyway.
//
// This is the eager reader: it serves documents of 64 KiB and more, and any
// document the lazy reader (lazy_json.hpp) does not take, including every
// invalid one, so that errors are reported in one place.

// Values under construction. A Value is a tag and one word with no
// self-references, so slots are relocated with memcpy into the final node.
class ValueStack {
public:
    ValueStack() = default;
    ValueStack(const ValueStack&) = delete;
    ValueStack& operator=(const ValueStack&) = delete;
    ~ValueStack() {
        clear();
        ::operator delete(data_);
    }
    std::size_t size() const noexcept { return size_; }
    Value* at(std::size_t i) noexcept { return data_ + i; }
    void push(Value v) {
        if (size_ == cap_) grow();
        new (data_ + size_) Value(std::move(v));
        ++size_;
    }
    // Drops slots [from, size) whose Values were relocated (no destructor runs).
    void forget_from(std::size_t from) noexcept { size_ = from; }
    void clear() noexcept {
        for (std::size_t i = 0; i < size_; ++i) data_[i].~Value();
        size_ = 0;
    }

private:
    void grow() {
        std::size_t cap = cap_ ? cap_ * 2 : 256;
        auto* d = static_cast<Value*>(::operator new(cap * sizeof(Value)));
        if (size_) std::memcpy(static_cast<void*>(d), static_cast<const void*>(data_), size_ * sizeof(Value));
        ::operator delete(data_);
        data_ = d;
        cap_ = cap;
    }
    Value* data_ = nullptr;
    std::size_t size_ = 0, cap_ = 0;
};

// A key's bytes for hashing and matching: short keys (the usual case) are
// two words, zero-padded; `p` may be read up to 16 bytes past its start (the
// padded input).
struct KeyWords {
    std::uint64_t a = 0, b = 0;
};

inline KeyWords key_words(const char* p, std::size_t n) noexcept {
    KeyWords k;
    if (n >= 16) {
        k.a = load_unaligned<std::uint64_t>(p);
        k.b = load_unaligned<std::uint64_t>(p + n - 8);
        return k;
    }
    k.a = load_unaligned<std::uint64_t>(p);
    k.b = load_unaligned<std::uint64_t>(p + 8);
    if (n < 8) {
        k.a &= (std::uint64_t(1) << (8 * n)) - 1;
        k.b = 0;
    } else {
        k.b &= (std::uint64_t(1) << (8 * (n - 8))) - 1;
    }
    return k;
}

// Table index only (matching compares the words): a short multiply-fold.
inline std::uint64_t key_hash(const KeyWords& k, std::size_t n) noexcept {
    std::uint64_t h = (k.a ^ 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL + (k.b ^ n) * 0x94d049bb133111ebULL;
    return h ^ (h >> 29) ^ (h >> 47);
}

// Per-document key interning (open addressing; a generation number empties
// the table between documents without touching it). Keys up to 16 bytes
// match on their words alone; longer ones (same length, first and last
// eight bytes) are then compared in full.
class KeyTable {
public:
    void start() {
        count_ = 0;
        if (++gen_ == 0) {
            for (auto& s : slots_) s.gen = 0;
            gen_ = 1;
        }
        if (slots_.empty()) slots_.resize(256);
    }
    StringNode* find(const char* p, std::size_t n, const KeyWords& k, std::uint64_t h) const noexcept {
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.gen != gen_) return nullptr;
            if (s.a == k.a && s.b == k.b && s.node->size == n && (n <= 16 || std::memcmp(s.node->data(), p, n) == 0))
                return s.node;
        }
    }
    void insert(StringNode* node, const KeyWords& k, std::uint64_t h) {
        if (count_ >= kMaxKeys) return;
        if ((count_ + 1) * 2 > slots_.size()) rehash();
        place(Slot{k.a, k.b, node, gen_, 0}, h);
        ++count_;
    }

private:
    static constexpr std::size_t kMaxKeys = 1 << 16;
    struct Slot {
        std::uint64_t a = 0, b = 0;
        StringNode* node = nullptr;
        std::uint32_t gen = 0;
        std::uint32_t pad = 0;
    };
    void place(const Slot& slot, std::uint64_t h) {
        std::size_t mask = slots_.size() - 1;
        std::size_t i = h & mask;
        while (slots_[i].gen == gen_) i = (i + 1) & mask;
        slots_[i] = slot;
    }
    void rehash() {
        std::vector<Slot> old(slots_.size() * 2);
        old.swap(slots_);
        for (const Slot& s : old)
            if (s.gen == gen_) place(s, key_hash(KeyWords{s.a, s.b}, s.node->size));
    }

    std::vector<Slot> slots_;
    std::uint32_t gen_ = 0;
    std::size_t count_ = 0;
};

struct Frame {
    std::uint32_t start;  // first stack slot of this container's items
    bool object;
};

struct ThreadState {
    std::unique_ptr<simdjson::internal::dom_parser_implementation> stage1;
    std::size_t stage1_cap = 0;
    std::unique_ptr<char[]> buf;
    std::size_t buf_cap = 0;
    std::string scratch;  // unescaped string bytes
    ValueStack stack;
    std::vector<Frame> frames;
    EntryOrder order;  // object entry permutation while sorting
    KeyTable keys;
};

ThreadState& thread_state() {
    thread_local ThreadState st;
    return st;
}

class Reader {
public:
    Reader(std::string_view text, const char* base, const std::uint32_t* idx, std::uint32_t n, const Limits& limits,
           ThreadState& st)
        : text_(text), base_(base), idx_(idx), n_(n), limits_(limits), st_(st),
          arena_(text.size() + text.size() / 2 + 256), intern_keys_(text.size() >= kInternKeysFrom) {}

    ParseError error_;

    std::string depth_message() const {
        return "JSON nesting too deep: more than " + std::to_string(limits_.max_depth) + " levels";
    }

    [[gnu::noinline, gnu::cold]] bool fail_at(const char* where, std::string_view what) {
        if (!failed_) {
            std::size_t off = where ? static_cast<std::size_t>(where - base_) : 0;
            if (off > text_.size()) off = text_.size();
            error_ = make_parse_error(text_, off, what);
            failed_ = true;
        }
        return false;
    }
    [[gnu::noinline, gnu::cold]] bool fail_simd(simdjson::error_code ec, const char* where,
                                                std::string_view context = {}) {
        std::string msg = "invalid JSON";
        if (!context.empty()) msg += std::string(": ") + std::string(context);
        msg += std::string(" (") + simdjson::error_message(ec) + ")";
        return fail_at(where, msg);
    }

    bool parse(Value& out) {
        ValueStack& stack = st_.stack;
        std::vector<Frame>& frames = st_.frames;
        stack.clear();
        frames.clear();
        st_.keys.start();
        bool ok = run(stack, frames);
        if (ok) {
            out = std::move(*stack.at(0));
            stack.clear();
        } else {
            stack.clear();
        }
        return ok;
    }

private:
    const char* at(std::uint32_t i) const noexcept { return base_ + idx_[i]; }

    // The root container does not close at the last structural: either it
    // closes earlier and something follows it, or it never closes. Say which,
    // and where (the first byte after the value, or the end of the input).
    [[gnu::noinline, gnu::cold]] bool fail_unclosed_root() {
        std::size_t depth = 0;
        for (std::uint32_t i = 0; i < n_; ++i) {
            char c = *at(i);
            if (c == '{' || c == '[') ++depth;
            else if ((c == '}' || c == ']') && depth > 0 && --depth == 0 && i + 1 < n_)
                return fail_at(at(i + 1), "unexpected content after JSON value");
        }
        return fail_simd(simdjson::INCOMPLETE_ARRAY_OR_OBJECT, end());
    }
    const char* end() const noexcept { return base_ + text_.size(); }

    bool run(ValueStack& stack, std::vector<Frame>& frames) {
        // The root container must be closed by the last structural (as
        // On-Demand requires); anything else is an incomplete document.
        char first = *at(0);
        if ((first == '{' || first == '[') && limits_.max_depth == 0) return fail_at(at(0), depth_message());
        if ((first == '{' || first == '[') && *at(n_ - 1) != (first == '{' ? '}' : ']')) return fail_unclosed_root();
        std::uint32_t i = 0;
        for (;;) {
            // ---- a value at index i ----
            const char* p = at(i);
            switch (*p) {
                case '{': {
                    if (frames.size() >= limits_.max_depth) return fail_at(p, depth_message());
                    if (*at(i + 1) == '}') {
                        stack.push(Value::empty_object());
                        i += 2;
                        break;
                    }
                    frames.push_back({static_cast<std::uint32_t>(stack.size()), true});
                    ++i;
                    if (!key(i, stack)) return false;
                    continue;
                }
                case '[': {
                    if (frames.size() >= limits_.max_depth) return fail_at(p, depth_message());
                    if (*at(i + 1) == ']') {
                        stack.push(Value::empty_array());
                        i += 2;
                        break;
                    }
                    frames.push_back({static_cast<std::uint32_t>(stack.size()), false});
                    ++i;
                    continue;
                }
                case '"': {
                    if (!string(i, stack, false)) return false;
                    ++i;
                    break;
                }
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
                    std::string_view tok = token(i);
                    Value v;
                    if (!read_scalar(tok, v)) {
                        if (*p == 't' || *p == 'f' || *p == 'n') return fail_at(p, "invalid literal");
                        return fail_at(p, "invalid number '" + std::string(tok.substr(0, 40)) + "'");
                    }
                    stack.push(std::move(v));
                    ++i;
                    break;
                }
                default:
                    if (i >= n_) return fail_simd(simdjson::INCOMPLETE_ARRAY_OR_OBJECT, end());
                    return fail_simd(simdjson::TAPE_ERROR, p);
            }
            // ---- after a value: close containers, or go on to the next item ----
            for (;;) {
                if (frames.empty()) {
                    if (i < n_) return fail_at(at(i), "unexpected content after JSON value");
                    return true;
                }
                Frame& f = frames.back();
                char c = *at(i);
                if (c == ',') {
                    ++i;
                    if (f.object && !key(i, stack)) return false;
                    break;
                }
                if (c == (f.object ? '}' : ']')) {
                    ++i;
                    std::uint32_t start = f.start;
                    bool object = f.object;
                    frames.pop_back();
                    if (object) close_object(stack, start);
                    else close_array(stack, start);
                    continue;
                }
                return fail_simd(simdjson::TAPE_ERROR, at(i), f.object ? "in object" : "in array");
            }
        }
    }

    // An object key at index i and the ':' after it; leaves i at the value.
    bool key(std::uint32_t& i, ValueStack& stack) {
        if (*at(i) != '"') {
            if (i >= n_) return fail_simd(simdjson::INCOMPLETE_ARRAY_OR_OBJECT, end());
            return fail_simd(simdjson::TAPE_ERROR, at(i), "in object");
        }
        if (!string(i, stack, true)) return false;
        if (*at(i + 1) != ':') {
            if (i + 1 >= n_) return fail_simd(simdjson::INCOMPLETE_ARRAY_OR_OBJECT, end());
            return fail_simd(simdjson::TAPE_ERROR, at(i + 1), "in object");
        }
        i += 2;
        return true;
    }

    // A scalar's text: up to the next structural, trailing whitespace removed.
    std::string_view token(std::uint32_t i) const noexcept {
        return scalar_token(at(i), i + 1 < n_ ? at(i + 1) : end());
    }

    // `p` may be read up to 16 bytes past its start unless n > 16.
    Value new_string(const char* p, std::size_t n) {
        if (n == 0) return Value::string({});
        void* mem = arena_.allocate(sizeof(StringNode) + n + 1);
        auto* node = new (mem) StringNode(n);
        arena_.adopt(node);
        if (n <= 16 && node->arena_offset) {
            // Copy 16 bytes: the arena keeps slack after its newest node.
            std::memcpy(node->data(), p, 16);
        } else {
            std::memcpy(node->data(), p, n);
        }
        node->data()[n] = '\0';
        return Value::adopt(Value::Tag::String, node);
    }

    // `overread`: p..p+16 is readable (the padded input).
    Value new_key(const char* p, std::size_t n, bool overread) {
        if (n == 0) return Value::string({});
        if (!intern_keys_) return new_string(p, n);
        KeyWords k;
        if (overread || n >= 16) {
            k = key_words(p, n);
        } else {
            char tmp[32] = {};
            std::memcpy(tmp, p, n);
            k = key_words(tmp, n);
        }
        std::uint64_t h = key_hash(k, n);
        KeyTable& keys = st_.keys;
        if (StringNode* node = keys.find(p, n, k, h)) {
            // Not yet published: no other thread can see the count.
            node->refs.store(node->refs.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
            return Value::adopt(Value::Tag::String, node);
        }
        Value v = new_string(p, n);
        keys.insert(const_cast<StringNode*>(static_cast<const StringNode*>(v.node())), k, h);
        return v;
    }

    // The string whose opening quote is at index i.
    bool string(std::uint32_t i, ValueStack& stack, bool is_key) {
        const char* start = at(i) + 1;
        // Stage 1 guarantees the closing quote is the last non-space byte
        // before the next structural.
        const char* e = closing_quote_before(start, i + 1 < n_ ? at(i + 1) : end());
        if (!e) return fail_simd(simdjson::UNCLOSED_STRING, at(i));
        const char* bs = find_backslash(start, e);
        if (bs == e) {
            std::size_t n = static_cast<std::size_t>(e - start);
            stack.push(is_key ? new_key(start, n, true) : new_string(start, n));
            return true;
        }
        std::string& s = st_.scratch;
        s.resize(static_cast<std::size_t>(e - start) + 16);  // new_string may read 16 bytes
        UnescapeError err;
        char* out = unescape_into(start, bs, e, s.data(), err);
        if (!out) return fail_at(err.at, err.what);
        std::size_t n = static_cast<std::size_t>(out - s.data());
        stack.push(is_key ? new_key(s.data(), n, false) : new_string(s.data(), n));
        return true;
    }

    void close_array(ValueStack& stack, std::uint32_t start) {
        std::size_t n = stack.size() - start;
        void* mem = arena_.allocate(sizeof(SeqNode) + n * sizeof(Value));
        auto* node = new (mem) SeqNode(detail::NodeType::Array, n);
        arena_.adopt(node);
        std::memcpy(static_cast<void*>(node->data()), static_cast<const void*>(stack.at(start)), n * sizeof(Value));
        stack.forget_from(start);
        stack.push(Value::adopt(Value::Tag::Array, node));
    }

    // Entries are (key, value) slot pairs from `start`; sorted by key, the
    // last of equal keys wins.
    void close_object(ValueStack& stack, std::uint32_t start) {
        static_assert(sizeof(ObjectEntry) == 2 * sizeof(Value));
        std::size_t m = (stack.size() - start) / 2;
        auto* items = reinterpret_cast<ObjectEntry*>(stack.at(start));
        EntryOrder& order = st_.order;
        const std::vector<std::uint32_t>& ord = order.keep;
        bool dropped = false;
        ObjectNode* node;
        if (order_entries(items, m, order, [&](std::uint32_t j) {
                items[j].~ObjectEntry();
                dropped = true;
            })) {
            node = new_object_node(m);
            std::memcpy(static_cast<void*>(node->data()), static_cast<const void*>(items), m * sizeof(ObjectEntry));
        } else {
            // A destroyed value may have held the last reference to an
            // interned key; the table must not hand that node out again.
            if (dropped) st_.keys.start();
            node = new_object_node(ord.size());
            for (std::size_t j = 0; j < ord.size(); ++j)
                std::memcpy(static_cast<void*>(node->data() + j), static_cast<const void*>(items + ord[j]),
                            sizeof(ObjectEntry));
        }
        stack.forget_from(start);
        stack.push(Value::adopt(Value::Tag::Object, node));
    }

    ObjectNode* new_object_node(std::size_t n) {
        void* mem = arena_.allocate(sizeof(ObjectNode) + n * sizeof(ObjectEntry));
        auto* node = new (mem) ObjectNode(n);
        arena_.adopt(node);
        return node;
    }

    std::string_view text_;
    const char* base_;
    const std::uint32_t* idx_;
    std::uint32_t n_;
    const Limits& limits_;
    ThreadState& st_;
    NodeArena arena_;
    // Interning pays in large documents (a data file, a long list of items:
    // one node per distinct key instead of one per occurrence, and less
    // memory to walk). A small document, such as an admission request, is
    // read and torn down faster without: no hashing, and no atomic count
    // updates on shared key nodes when it is freed (12.6 vs 13.8 us for a
    // 10-container Pod review, parsed and evaluated).
    static constexpr std::size_t kInternKeysFrom = 64 * 1024;
    bool intern_keys_;
    bool failed_ = false;
};

// Position of the first byte that is neither whitespace: used when simdjson
// reports a structural error without a location.
std::size_t first_problem_hint(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
    return i;
}

// simdjson's stage 1 reports some errors without a position; find it.
std::size_t structural_error_offset(std::string_view text, simdjson::error_code ec) {
    if (ec == simdjson::UNESCAPED_CHARS || ec == simdjson::UNCLOSED_STRING) {
        bool in_str = false;
        std::size_t open = 0;
        for (std::size_t i = 0; i < text.size(); ++i) {
            char c = text[i];
            if (!in_str) {
                if (c == '"') {
                    in_str = true;
                    open = i;
                }
            } else if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_str = false;
            } else if (static_cast<unsigned char>(c) < 0x20 && ec == simdjson::UNESCAPED_CHARS) {
                return i;
            }
        }
        if (in_str) return open;
    }
    if (ec == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || ec == simdjson::TAPE_ERROR) return text.size();
    return first_problem_hint(text);
}

}  // namespace

namespace {

// The thread's stage-1 parser, with room for `size` bytes; false when it
// cannot be allocated.
bool ensure_stage1(ThreadState& st, std::size_t size) {
    if (st.stage1 && st.stage1_cap >= size) return true;
    std::size_t cap = std::max<std::size_t>({size, st.stage1_cap * 2, 4096});
    cap = std::min<std::size_t>(cap, simdjson::SIMDJSON_MAXSIZE_BYTES);
    simdjson::error_code ec = st.stage1 ? st.stage1->set_capacity(cap)
                                        : simdjson::get_active_implementation()->create_dom_parser_implementation(
                                              cap, simdjson::DEFAULT_MAX_DEPTH, st.stage1);
    if (ec != simdjson::SUCCESS) {
        st.stage1.reset();
        st.stage1_cap = 0;
        return false;
    }
    st.stage1_cap = cap;
    return true;
}

// Stage 1 for the lazy reader (which reports no errors of its own).
bool lazy_stage1(const char* padded, std::size_t size, const std::uint32_t*& index, std::uint32_t& count) {
    ThreadState& st = thread_state();
    if (!ensure_stage1(st, size)) return false;
    if (st.stage1->stage1(reinterpret_cast<const std::uint8_t*>(padded), size, simdjson::stage1_mode::regular) !=
        simdjson::SUCCESS)
        return false;
    index = st.stage1->structural_indexes.get();
    count = st.stage1->n_structural_indexes;
    return true;
}

}  // namespace

ParseResult parse_json(std::string_view text, const Limits& limits) {
    ParseResult res;
    if (text.size() > limits.max_input_bytes) {
        res.error.message = "JSON input too large: " + std::to_string(text.size()) + " bytes (limit " +
                            std::to_string(limits.max_input_bytes) + ")";
        return res;
    }
    if (detail::read_json_lazily(text, limits, &lazy_stage1, res.value)) {
        res.ok = true;
        return res;
    }
    return detail::parse_json_eagerly(text, limits);
}

namespace detail {

ParseResult parse_json_eagerly(std::string_view text, const Limits& limits) {
    ParseResult res;
    if (text.size() > limits.max_input_bytes) {
        res.error.message = "JSON input too large: " + std::to_string(text.size()) + " bytes (limit " +
                            std::to_string(limits.max_input_bytes) + ")";
        return res;
    }
    if (text.size() > simdjson::SIMDJSON_MAXSIZE_BYTES - simdjson::SIMDJSON_PADDING) {
        res.error.message = "JSON input too large: " + std::to_string(text.size()) + " bytes";
        return res;
    }
    ThreadState& st = thread_state();
    std::size_t need = text.size() + simdjson::SIMDJSON_PADDING;
    if (st.buf_cap < need) {
        std::size_t cap = std::max(need, st.buf_cap * 2);
        st.buf.reset(new char[cap]);
        st.buf_cap = cap;
    }
    if (!text.empty()) std::memcpy(st.buf.get(), text.data(), text.size());
    std::memset(st.buf.get() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    if (!ensure_stage1(st, text.size())) {
        res.error.message = "JSON parser allocation failed";
        return res;
    }

    const char* base = st.buf.get();
    simdjson::error_code ec = simdjson::EMPTY;
    if (!text.empty())
        ec =
            st.stage1->stage1(reinterpret_cast<const std::uint8_t*>(base), text.size(), simdjson::stage1_mode::regular);
    if (ec != simdjson::SUCCESS) {
        // Invalid UTF-8 is reported first, wherever it is.
        if (std::size_t bad = support::utf8::find_invalid(text); bad != std::string_view::npos) {
            res.error = make_parse_error(text, bad, "invalid UTF-8 in JSON input");
        } else if (ec == simdjson::EMPTY) {
            res.error = make_parse_error(text, text.size(), "empty JSON input");
        } else {
            res.error = make_parse_error(text, structural_error_offset(text, ec),
                                         std::string("invalid JSON (") + simdjson::error_message(ec) + ")");
        }
        return res;
    }
    Reader reader(text, base, st.stage1->structural_indexes.get(), st.stage1->n_structural_indexes, limits, st);
    Value out;
    if (!reader.parse(out)) {
        res.error = std::move(reader.error_);
        return res;
    }
    res.ok = true;
    res.value = std::move(out);
    return res;
}

}  // namespace detail

// ---- writing --------------------------------------------------------------------------

namespace {

// Thrown by Out when its budget says stop; caught where the writing started.
struct WriteStopped {};

// Output cursor over a std::string: space is reserved ahead, bytes are
// stored through a raw pointer, and the string is trimmed in finish().
// With a budget, it grows only within its memory limit.
class Out {
public:
    // Go's encoding/json with SetEscapeHTML(true) (its default) also escapes <, > and &.
    bool escape_html_ = false;
    explicit Out(std::string& s, WorkBudget* budget = nullptr) : s_(s), base_(s.size()), budget_(budget) {
        p_ = s_.data() + s_.size();
        end_ = p_;
    }
    void reserve(std::size_t n) {
        if (static_cast<std::size_t>(end_ - p_) < n) grow(n);
    }
    void put(char c) { *p_++ = c; }  // after reserve()
    void put(const char* d, std::size_t n) {
        if (n) std::memcpy(p_, d, n);  // d may be null when n == 0
        p_ += n;
    }
    void lit(std::string_view t) {  // reserves
        reserve(t.size());
        put(t.data(), t.size());
    }
    void finish() { s_.resize(static_cast<std::size_t>(p_ - s_.data())); }
    // Appends through std::string functions.
    template <class F>
    void via_string(F f) {
        finish();
        f(s_);
        p_ = s_.data() + s_.size();
        end_ = p_;
    }
    void string(std::string_view s);
    WorkBudget* budget() const { return budget_; }
    // One value written: work for the budget, if any.
    void count(std::size_t bytes) {
        if (budget_ && budget_->spend(1 + bytes / 16)) throw WriteStopped{};
    }

private:
    void grow(std::size_t n) {
        std::size_t used = static_cast<std::size_t>(p_ - s_.data());
        // Grows by what this cursor wrote so far, not by the whole string: a
        // short text appended to a long one (append_json_string) must not
        // resize the long one to twice its size, and zero it, each time.
        std::size_t size = used + std::max({n, used - base_, std::size_t{256}});
        // Room the string has already is used before any is allocated (whoever
        // made that room, a budget, asked for it).
        if (size > s_.capacity() && used + n <= s_.capacity()) size = s_.capacity();
        if (budget_ && size > s_.capacity() && !budget_->affords(std::max(size, 2 * s_.capacity())))
            throw WriteStopped{};
        s_.resize(size);
        p_ = s_.data() + used;
        end_ = s_.data() + s_.size();
    }
    std::string& s_;
    std::size_t base_;
    WorkBudget* budget_;
    char* p_;
    char* end_;
};

void Out::string(std::string_view s) { support::write_json_string(*this, s, {escape_html_}); }

class Writer {
public:
    Writer(Out& out, JsonStyle style, std::size_t indent_base = 0)
        : out_(out), pretty_(style == JsonStyle::Pretty), indent_base_(indent_base) {}

    void value(const Value& v, std::size_t indent) {
        out_.count(v.is_string() ? v.as_string().size() : 0);
        switch (v.tag()) {
            case Value::Tag::Null: out_.lit("null"); return;
            case Value::Tag::False: out_.lit("false"); return;
            case Value::Tag::True: out_.lit("true"); return;
            case Value::Tag::Int: {
                std::int64_t i = 0;
                v.as_int64(i);
                fmt::format_int f(i);
                out_.reserve(f.size());
                out_.put(f.data(), f.size());
                return;
            }
            case Value::Tag::Float:
            case Value::Tag::NumHeap: out_.via_string([&](std::string& s) { v.as_number().append_to(s); }); return;
            case Value::Tag::String: out_.string(v.as_string()); return;
            case Value::Tag::Array: seq(v.array_elements(), indent); return;
            case Value::Tag::Set: seq(v.set_elements(), indent); return;
            case Value::Tag::Object: object(v, indent); return;
        }
    }

private:
    void newline(std::size_t indent) {
        indent += indent_base_;
        out_.reserve(1 + indent * 2);
        out_.put('\n');
        for (std::size_t i = 0; i < indent; ++i) out_.put("  ", 2);
    }

    void seq(std::span<const Value> items, std::size_t indent) {
        out_.reserve(2);
        out_.put('[');
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i) {
                out_.reserve(1);
                out_.put(',');
            }
            if (pretty_) newline(indent + 1);
            value(items[i], indent + 1);
        }
        if (pretty_ && !items.empty()) newline(indent);
        out_.reserve(1);
        out_.put(']');
    }

    void member(std::string_view key, const Value& val, bool first, std::size_t indent) {
        if (!first) {
            out_.reserve(1);
            out_.put(',');
        }
        if (pretty_) newline(indent + 1);
        out_.string(key);
        out_.reserve(2);
        out_.put(':');
        if (pretty_) out_.put(' ');
        value(val, indent + 1);
    }

    void object(const Value& v, std::size_t indent) {
        auto entries = v.object_entries();
        bool all_strings = true;
        for (const ObjectEntry& e : entries)
            if (!e.key.is_string()) {
                all_strings = false;
                break;
            }
        out_.reserve(2);
        out_.put('{');
        if (all_strings) {
            for (std::size_t i = 0; i < entries.size(); ++i)
                member(entries[i].key.as_string(), entries[i].value, i == 0, indent);
        } else {
            // Non-string keys: key text is the key's compact JSON; order by it. OPA writes that
            // text with Go's json.Encoder (ast.valueToInterface), which escapes <, > and &.
            struct K {
                std::string text;
                const Value* val;
            };
            std::vector<K> keys;
            keys.reserve(entries.size());
            JsonWriteOptions key_options;
            key_options.escape_html = true;
            for (const auto& e : entries) {
                K k{{}, &e.value};
                if (e.key.is_string()) k.text.assign(e.key.as_string());
                else if (!out_.budget()) append_json(k.text, e.key, key_options);
                else if (!append_json(k.text, e.key, key_options, *out_.budget())) throw WriteStopped{};
                keys.push_back(std::move(k));
            }
            std::stable_sort(keys.begin(), keys.end(), [](const K& a, const K& b) { return a.text < b.text; });
            bool first = true;
            for (std::size_t i = 0; i < keys.size(); ++i) {
                // Keys that write one text (1 and "1"): OPA fills a Go map in canonical order,
                // so the last one's value is written.
                if (i + 1 < keys.size() && keys[i].text == keys[i + 1].text) continue;
                member(keys[i].text, *keys[i].val, first, indent);
                first = false;
            }
        }
        if (pretty_ && !entries.empty()) newline(indent);
        out_.reserve(1);
        out_.put('}');
    }

    Out& out_;
    bool pretty_;
    std::size_t indent_base_;
};

}  // namespace

void append_json_string(std::string& out, std::string_view s) { support::append_json_string(out, s); }

std::string json_key_text(const Value& key) {
    if (key.is_string()) return std::string(key.as_string());
    JsonWriteOptions options;
    options.escape_html = true;
    std::string text;
    append_json(text, key, options);
    return text;
}

void append_json(std::string& out, const Value& v, JsonStyle style) {
    Out o(out);
    Writer w(o, style);
    w.value(v, 0);
    o.finish();
}

void append_json(std::string& out, const Value& v, const JsonWriteOptions& options) {
    Out o(out);
    o.escape_html_ = options.escape_html;
    Writer w(o, options.style, options.indent);
    w.value(v, 0);
    o.finish();
}

void append_json_string(std::string& out, std::string_view s, const JsonWriteOptions& options) {
    support::append_json_string(out, s, {options.escape_html});
}

bool append_json(std::string& out, const Value& v, const JsonWriteOptions& options, WorkBudget& budget) {
    Out o(out, &budget);
    o.escape_html_ = options.escape_html;
    Writer w(o, options.style, options.indent);
    try {
        w.value(v, 0);
    } catch (const WriteStopped&) {
        return false;
    }
    o.finish();
    return true;
}

std::string to_json(const Value& v, JsonStyle style) {
    std::string out;
    append_json(out, v, style);
    return out;
}

}  // namespace gavel::runtime
