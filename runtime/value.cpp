#include "runtime/value.hpp"

#include "runtime/byte_compare.hpp"
#include "runtime/hash.hpp"
#include "runtime/node_arena.hpp"
#include "runtime/string_sort.hpp"
#include "runtime/work_budget.hpp"

#include <algorithm>
#include <new>

namespace gavel::runtime {

namespace {

using detail::Node;
using detail::NodeType;
using detail::ObjectNode;
using detail::SeqNode;
using detail::StringNode;

constexpr std::uint64_t kSeed[] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL,
};

std::uint64_t seed_of(Kind k) { return kSeed[static_cast<unsigned>(k)]; }

SeqNode* alloc_seq(NodeType t, std::size_t n) {
    void* mem = ::operator new(sizeof(SeqNode) + n * sizeof(Value));
    return new (mem) SeqNode(t, n);
}

ObjectNode* alloc_object(std::size_t n) {
    void* mem = ::operator new(sizeof(ObjectNode) + n * sizeof(ObjectEntry));
    return new (mem) ObjectNode(n);
}

// Moves `items` into a fresh node; `items` is left with moved-from values.
Value make_seq(Value::Tag tag, NodeType nt, std::vector<Value>& items, std::size_t n) {
    if (n == 0) return Value::adopt(tag, nullptr);
    SeqNode* node = alloc_seq(nt, n);
    Value* out = node->data();
    for (std::size_t i = 0; i < n; ++i) new (out + i) Value(std::move(items[i]));
    return Value::adopt(tag, node);
}

std::uint64_t cached(const std::atomic<std::uint64_t>& slot, auto compute) {
    std::uint64_t h = slot.load(std::memory_order_relaxed);
    if (h != 0) return h;
    h = compute();
    if (h == 0) h = 1;
    const_cast<std::atomic<std::uint64_t>&>(slot).store(h, std::memory_order_relaxed);
    return h;
}

// Compare a key with a string without building a Value.
int cmp_with_string(const Value& k, std::string_view s) {
    Kind kk = k.kind();
    if (kk != Kind::String) return kk < Kind::String ? -1 : 1;
    return compare_bytes(k.as_string(), s);
}

bool seq_equal(std::span<const Value> a, std::span<const Value> b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i])) return false;
    return true;
}

int seq_compare(std::span<const Value> a, std::span<const Value> b) {
    std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (int c = compare(a[i], b[i])) return c;
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

}  // namespace

namespace detail {
void destroy_node(Node* n) noexcept {
    switch (n->type) {
        case NodeType::String: {
            auto* s = static_cast<StringNode*>(n);
            s->~StringNode();
            free_node_memory(s);
            return;
        }
        case NodeType::Array:
        case NodeType::Set: {
            BatchedArenaFrees batch;
            auto* s = static_cast<SeqNode*>(n);
            Value* d = s->data();
            for (std::size_t i = 0; i < s->size; ++i) d[i].~Value();
            s->~SeqNode();
            free_node_memory(s);
            return;
        }
        case NodeType::Object: {
            BatchedArenaFrees batch;
            auto* o = static_cast<ObjectNode*>(n);
            ObjectEntry* d = o->data();
            for (std::size_t i = 0; i < o->size; ++i) d[i].~ObjectEntry();
            o->~ObjectNode();
            free_node_memory(o);
            return;
        }
        case NodeType::Number: destroy_number_node(n); return;
    }
}
}  // namespace detail

std::string_view type_name(Kind k) noexcept {
    switch (k) {
        case Kind::Null: return "null";
        case Kind::Boolean: return "boolean";
        case Kind::Number: return "number";
        case Kind::String: return "string";
        case Kind::Array: return "array";
        case Kind::Object: return "object";
        case Kind::Set: return "set";
    }
    return "null";
}

std::string_view type_name(const Value& v) noexcept { return type_name(v.kind()); }

// ---- factories ------------------------------------------------------------------

Value Value::number(Number n) noexcept {
    Number::Raw r = n.release_raw();
    Tag t = r.rep == Number::Rep::Int ? Tag::Int : r.rep == Number::Rep::Float ? Tag::Float : Tag::NumHeap;
    return Value(t, r.i);
}

Number Value::as_number() const noexcept {
    switch (tag_) {
        case Tag::Int: return Number::from_int(i_);
        case Tag::Float: return Number::from_raw_retain(Number::Rep::Float, i_);
        case Tag::NumHeap: return Number::from_raw_retain(Number::Rep::Heap, i_);
        default: return Number();
    }
}

Value Value::string(std::string_view s) {
    if (s.empty()) return Value(Tag::String, 0);
    void* mem = ::operator new(sizeof(StringNode) + s.size() + 1);
    auto* node = new (mem) StringNode(s.size());
    std::memcpy(node->data(), s.data(), s.size());
    node->data()[s.size()] = '\0';
    return adopt(Tag::String, node);
}

Value Value::string_concat(std::span<const std::string_view> parts) {
    std::size_t n = 0;
    for (std::string_view part : parts) n += part.size();
    if (n == 0) return Value(Tag::String, 0);
    void* mem = ::operator new(sizeof(StringNode) + n + 1);
    auto* node = new (mem) StringNode(n);
    char* out = node->data();
    for (std::string_view part : parts) {
        if (part.empty()) continue;  // an empty view may have no storage (data() == nullptr)
        std::memcpy(out, part.data(), part.size());
        out += part.size();
    }
    *out = '\0';
    return adopt(Tag::String, node);
}

Value Value::array(std::initializer_list<Value> items) {
    ArrayBuilder b(items.size());
    for (const Value& v : items) b.push_back(v);
    return b.build();
}

Value Value::array_of(std::span<const Value> items) {
    if (items.empty()) return empty_array();
    SeqNode* node = alloc_seq(NodeType::Array, items.size());
    Value* out = node->data();
    for (std::size_t i = 0; i < items.size(); ++i) new (out + i) Value(items[i]);
    return adopt(Tag::Array, node);
}

Value Value::set(std::initializer_list<Value> items) {
    SetBuilder b(items.size());
    for (const Value& v : items) b.insert(v);
    return b.build();
}

Value Value::object(std::initializer_list<std::pair<Value, Value>> entries) {
    ObjectBuilder b(entries.size());
    for (const auto& [k, v] : entries) b.insert(k, v);
    return b.build();
}

// ---- lookup -------------------------------------------------------------------------

const Value* Value::find(std::string_view key) const noexcept {
    auto entries = object_entries();
    std::size_t lo = 0, hi = entries.size();
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        int c = cmp_with_string(entries[mid].key, key);
        if (c == 0) return &entries[mid].value;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return nullptr;
}

namespace {
bool written_as_int(const Value& v);
const ObjectEntry* find_number_key(std::span<const ObjectEntry> entries, std::size_t at, const Value& key);
}  // namespace

const Value* Value::find(const Value& key) const noexcept {
    if (key.tag_ == Tag::String) return find(key.as_string());
    auto entries = object_entries();
    std::size_t lo = 0, hi = entries.size();
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        int c = compare(entries[mid].key, key);
        if (c == 0) {
            if (!key.is_number()) return &entries[mid].value;
            const ObjectEntry* e = find_number_key(entries, mid, key);
            return e ? &e->value : nullptr;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return nullptr;
}

namespace {

// OPA's set (ast/term.go, set.insert and set.get) compares a number written as an
// integer (json.Number.Int64 reads it: "2", not "2.0" or "1e0") only with numbers
// written so; any other number equals every number of its value. So a set that
// gets 2.0 and then 2 holds both, one that gets 2 and then 2.0 holds 2.
bool written_as_int(const Value& v) {
    std::int64_t i;
    return v.as_written_int64(i);
}

// Whether OPA's set finds `member` when it looks up `probe` (both of one value).
bool set_lookup_matches(const Value& probe, const Value& member) {
    return !probe.is_number() || !written_as_int(probe) || written_as_int(member);
}

// OPA's object (object.insert and object.get) compares number keys by the same test, and
// of the keys it matches takes the one inserted last (its hash chain's head): objects keep
// keys of one value in insertion order, so that is the last of their run that matches.
// `at` is an entry whose key equals `key` in value.
const ObjectEntry* find_number_key(std::span<const ObjectEntry> entries, std::size_t at, const Value& key) {
    std::size_t end = at + 1;
    while (end < entries.size() && entries[end].key == key) ++end;
    std::size_t begin = at;
    while (begin > 0 && entries[begin - 1].key == key) --begin;
    for (std::size_t i = end; i-- > begin;)
        if (set_lookup_matches(key, entries[i].key)) return &entries[i];
    return nullptr;
}

}  // namespace

bool Value::contains(const Value& v) const noexcept {
    auto elems = set_elements();
    std::size_t lo = 0, hi = elems.size();
    while (lo < hi) {
        std::size_t mid = lo + (hi - lo) / 2;
        int c = compare(elems[mid], v);
        if (c == 0) {
            if (set_lookup_matches(v, elems[mid])) return true;
            // 2 looked up where 2.0 is: only a 2 written so next to it is found (OPA's set.get).
            for (std::size_t i = mid; i-- > 0 && elems[i] == v;)
                if (set_lookup_matches(v, elems[i])) return true;
            for (std::size_t i = mid + 1; i < elems.size() && elems[i] == v; ++i)
                if (set_lookup_matches(v, elems[i])) return true;
            return false;
        }
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

// ---- hashing, equality, ordering ------------------------------------------------

std::uint64_t Value::hash() const noexcept {
    switch (tag_) {
        case Tag::Null: return seed_of(Kind::Null);
        case Tag::False: return hash_mix(seed_of(Kind::Boolean));
        case Tag::True: return hash_mix(seed_of(Kind::Boolean) + 1);
        case Tag::Int: return hash_combine(seed_of(Kind::Number), hash_mix(static_cast<std::uint64_t>(i_)));
        case Tag::Float:
        case Tag::NumHeap: return hash_combine(seed_of(Kind::Number), as_number().hash());
        case Tag::String: {
            if (!p_) return hash_combine(seed_of(Kind::String), hash_bytes("", 0));
            auto* n = static_cast<const StringNode*>(p_);
            return cached(n->hash, [&] { return hash_combine(seed_of(Kind::String), hash_bytes(n->data(), n->size)); });
        }
        case Tag::Array:
        case Tag::Set: {
            Kind k = kind();
            if (!p_) return seed_of(k);
            auto* n = static_cast<const SeqNode*>(p_);
            return cached(n->hash, [&] {
                std::uint64_t h = seed_of(k);
                for (const Value& e : k == Kind::Array ? array_elements() : set_elements())
                    h = hash_combine(h, e.hash());
                return h;
            });
        }
        case Tag::Object: {
            if (!p_) return seed_of(Kind::Object);
            auto* n = static_cast<const ObjectNode*>(p_);
            return cached(n->hash, [&] {
                std::uint64_t h = seed_of(Kind::Object);
                for (const ObjectEntry& e : object_entries()) {
                    h = hash_combine(h, e.key.hash());
                    h = hash_combine(h, e.value.hash());
                }
                return h;
            });
        }
    }
    return 0;
}

bool operator==(const Value& a, const Value& b) noexcept {
    using Tag = Value::Tag;
    if (a.tag_ == b.tag_ && a.i_ == b.i_) return true;  // same inline value or same node
    Kind ka = a.kind();
    if (ka != b.kind()) return false;
    switch (ka) {
        case Kind::Null:
        case Kind::Boolean: return false;  // tags/payload differ
        case Kind::Number:
            if (a.tag_ == Tag::Int && b.tag_ == Tag::Int) return false;
            return compare(a.as_number(), b.as_number()) == 0;
        case Kind::String: {
            return same_bytes(a.as_string(), b.as_string());
        }
        case Kind::Array: return seq_equal(a.array_elements(), b.array_elements());
        case Kind::Set: return seq_equal(a.set_elements(), b.set_elements());
        case Kind::Object: {
            auto x = a.object_entries(), y = b.object_entries();
            if (x.size() != y.size()) return false;
            if (a.p_ && b.p_) {  // cheap reject when both hashes are known
                auto hx = static_cast<const ObjectNode*>(a.p_)->hash.load(std::memory_order_relaxed);
                auto hy = static_cast<const ObjectNode*>(b.p_)->hash.load(std::memory_order_relaxed);
                if (hx && hy && hx != hy) return false;
            }
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!(x[i].key == y[i].key) || !(x[i].value == y[i].value)) return false;
            return true;
        }
    }
    return false;
}

int compare(const Value& a, const Value& b) noexcept {
    using Tag = Value::Tag;
    if (a.tag_ == b.tag_ && a.i_ == b.i_) return 0;  // the same inline value or the same node
    Kind ka = a.kind(), kb = b.kind();
    if (ka != kb) return ka < kb ? -1 : 1;
    switch (ka) {
        case Kind::Null: return 0;
        case Kind::Boolean: return a.as_bool() == b.as_bool() ? 0 : (a.as_bool() ? 1 : -1);
        case Kind::Number:
            if (a.tag_ == Tag::Int && b.tag_ == Tag::Int) return a.i_ < b.i_ ? -1 : (a.i_ > b.i_ ? 1 : 0);
            return compare(a.as_number(), b.as_number());
        case Kind::String: return compare_bytes(a.as_string(), b.as_string());
        case Kind::Array: return seq_compare(a.array_elements(), b.array_elements());
        case Kind::Set: return seq_compare(a.set_elements(), b.set_elements());
        case Kind::Object: {
            if (a.p_ == b.p_) return 0;
            auto x = a.object_entries(), y = b.object_entries();
            std::size_t n = std::min(x.size(), y.size());
            for (std::size_t i = 0; i < n; ++i) {
                if (int c = compare(x[i].key, y[i].key)) return c;
                if (int c = compare(x[i].value, y[i].value)) return c;
            }
            return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
        }
    }
    return 0;
}

// ---- builders ---------------------------------------------------------------------

Value ArrayBuilder::build() {
    Value v = make_seq(Value::Tag::Array, NodeType::Array, items_, items_.size());
    items_.clear();
    return v;
}

namespace {

// De-duplicates stably sorted elements as OPA's set inserts them in that order: of a
// run of equal values the first stays, and a number written as an integer after a
// first one that is not (2 after 2.0) stays too.
void unique_as_opa_inserts(std::vector<Value>& items) {
    std::size_t w = 0;
    for (std::size_t r = 0; r < items.size();) {
        std::size_t end = r + 1;
        while (end < items.size() && items[end] == items[r]) ++end;
        bool also_int = items[r].is_number() && !written_as_int(items[r]);
        std::size_t first = r;
        if (w != r) items[w] = std::move(items[r]);
        ++w;
        if (also_int)
            for (std::size_t i = first + 1; i < end; ++i)
                if (written_as_int(items[i])) {
                    if (w != i) items[w] = std::move(items[i]);
                    ++w;
                    break;
                }
        r = end;
    }
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(w), items.end());
}

}  // namespace

Value SetBuilder::build() {
    // Sets of strings (messages of deny rules) are the common case: compare
    // their bytes directly instead of dispatching on the type of each pair.
    bool all_strings = std::all_of(items_.begin(), items_.end(), [](const Value& v) { return v.is_string(); });
    if (all_strings) {
        sort_unique_strings(items_);
    } else {
        // Stable: equal elements keep the order they came in (unique_as_opa_inserts).
        auto less = [](const Value& a, const Value& b) { return compare(a, b) < 0; };
        if (!std::is_sorted(items_.begin(), items_.end(), less)) std::stable_sort(items_.begin(), items_.end(), less);
        unique_as_opa_inserts(items_);
    }
    Value v = make_seq(Value::Tag::Set, NodeType::Set, items_, items_.size());
    items_.clear();
    return v;
}

namespace {

// Room for one more element in `items` within `budget` (a full list doubles).
bool room_for_one(const std::vector<Value>& items, WorkBudget& budget) {
    if (budget.spend()) return false;
    return items.size() < items.capacity() ||
           budget.affords(std::max<std::size_t>(16, 2 * items.capacity()) * sizeof(Value));
}

}  // namespace

bool ArrayBuilder::push_back(Value v, WorkBudget& budget) {
    if (!room_for_one(items_, budget)) return false;
    items_.push_back(std::move(v));
    return true;
}

bool SetBuilder::insert(Value v, WorkBudget& budget) {
    if (!room_for_one(items_, budget)) return false;
    items_.push_back(std::move(v));
    return true;
}

std::optional<Value> SetBuilder::build(WorkBudget& budget) {
    struct Stop {};
    auto less = [&](const Value& a, const Value& b) {
        if (budget.spend()) throw Stop{};
        return compare(a, b) < 0;
    };
    try {
        if (!std::is_sorted(items_.begin(), items_.end(), less)) std::stable_sort(items_.begin(), items_.end(), less);
    } catch (const Stop&) {
        items_.clear();
        return std::nullopt;
    }
    unique_as_opa_inserts(items_);
    if (!budget.affords(sizeof(detail::SeqNode) + items_.size() * sizeof(Value))) {
        items_.clear();
        return std::nullopt;
    }
    Value v = make_seq(Value::Tag::Set, NodeType::Set, items_, items_.size());
    items_.clear();
    return v;
}

namespace {

// Stable (equal keys keep insertion order, which the de-duplication relies
// on). Objects are usually small or already sorted: those need no buffer.
void sort_entries(std::vector<ObjectEntry>& items) {
    auto less = [](const ObjectEntry& a, const ObjectEntry& b) { return compare(a.key, b.key) < 0; };
    if (std::is_sorted(items.begin(), items.end(), less)) return;
    if (items.size() > 16) {
        std::stable_sort(items.begin(), items.end(), less);
        return;
    }
    for (std::size_t i = 1; i < items.size(); ++i) {
        if (!less(items[i], items[i - 1])) continue;
        ObjectEntry t = std::move(items[i]);
        std::size_t j = i;
        do {
            items[j] = std::move(items[j - 1]);
            --j;
        } while (j > 0 && less(t, items[j - 1]));
        items[j] = std::move(t);
    }
}

Value make_object(std::vector<ObjectEntry>& items, std::size_t n) {
    if (n == 0) return Value::adopt(Value::Tag::Object, nullptr);
    ObjectNode* node = alloc_object(n);
    ObjectEntry* out = node->data();
    for (std::size_t i = 0; i < n; ++i) new (out + i) ObjectEntry(std::move(items[i]));
    return Value::adopt(Value::Tag::Object, node);
}

}  // namespace

namespace {

// Inserts sorted entries (equal keys in insertion order) into themselves as OPA's object
// does, compacting in place: an entry whose key matches one kept before (find_number_key's
// test, the latest kept first) goes to `merge(kept, entry)`, any other is kept. Returns the
// number kept, or stops early when merge returns false.
template <typename Merge>
std::size_t insert_as_opa(std::vector<ObjectEntry>& items, Merge merge) {
    std::size_t w = 0;
    std::size_t run = 0;  // where the kept entries equal to the current key begin
    for (std::size_t r = 0; r < items.size(); ++r) {
        if (w == 0 || !(items[w - 1].key == items[r].key)) run = w;
        std::size_t match = w;
        for (std::size_t i = w; i-- > run;)
            if (set_lookup_matches(items[r].key, items[i].key)) {
                match = i;
                break;
            }
        if (match < w) {
            if (!merge(items[match], items[r])) return w;
            continue;
        }
        if (w != r) items[w] = std::move(items[r]);
        ++w;
    }
    return w;
}

}  // namespace

Value ObjectBuilder::build(DuplicateKeys dup) {
    sort_entries(items_);
    std::size_t n = insert_as_opa(items_, [&](ObjectEntry& kept, ObjectEntry& e) {
        if (dup == DuplicateKeys::LastWins) kept.value = std::move(e.value);
        return true;
    });
    Value v = make_object(items_, n);
    items_.clear();
    return v;
}

ObjectBuilder::Checked ObjectBuilder::build_checked() {
    sort_entries(items_);
    Checked out;
    std::size_t n = insert_as_opa(items_, [&](ObjectEntry& kept, ObjectEntry& e) {
        if (kept.value == e.value) return true;
        out.conflict = true;
        out.key = e.key;
        out.first = kept.value;
        out.second = e.value;
        return false;
    });
    if (out.conflict) {
        items_.clear();
        return out;
    }
    out.value = make_object(items_, n);
    items_.clear();
    return out;
}

}  // namespace gavel::runtime
