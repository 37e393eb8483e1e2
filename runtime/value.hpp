// The Rego value model: null, boolean, number, string, array, set, object.
//
// A Value is 16 bytes: a tag and an 8-byte payload. null, booleans, int64
// numbers and non-integral doubles live inline; strings, big/literal numbers,
// arrays, sets and objects live in immutable heap nodes shared through an
// atomic intrusive reference count (node.hpp), so copying a Value is a tag
// copy plus at most one relaxed atomic increment, and Values may be shared
// across threads freely. Empty strings/arrays/sets/objects need no node.
// Arrays and objects read from a small JSON document may be lazy: their
// entries are built on first access through the accessors below
// (lazy_json.hpp), which is invisible to callers.
//
// Sets and objects are kept canonical: elements (set) and entries sorted by
// key (object) in OPA's value order, without duplicates. Lookup is a binary
// search; iteration order is the canonical order, so output is deterministic.
// Object keys may be any value ({1: "a", [1]: 2}).
//
// Ordering (OPA's ast.Compare): null < boolean < number < string < array <
// object < set. false < true; numbers by value (1 == 1.0); strings bytewise;
// arrays element-wise then by length; objects by sorted keys pairwise (key i,
// then value i) then by size; sets by sorted elements pairwise then by size.
// hash() is consistent with equality (hash(1) == hash(1.0)) and cached in the
// node for strings and collections.
#pragma once

#include "runtime/node.hpp"
#include "runtime/number.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gavel::runtime {

// Declaration order is OPA's sort order of kinds.
enum class Kind : std::uint8_t { Null, Boolean, Number, String, Array, Object, Set };

// OPA's type names: "null", "boolean", "number", "string", "array", "object", "set".
std::string_view type_name(Kind k) noexcept;

struct ObjectEntry;

class Value {
public:
    Value() noexcept : tag_(Tag::Null), i_(0) {}
    Value(const Value& o) noexcept : tag_(o.tag_), i_(o.i_) {
        if (o.is_heap()) detail::retain(p_);
    }
    Value(Value&& o) noexcept : tag_(o.tag_), i_(o.i_) {
        o.tag_ = Tag::Null;
        o.i_ = 0;
    }
    Value& operator=(const Value& o) noexcept {
        Value t(o);
        swap(t);
        return *this;
    }
    Value& operator=(Value&& o) noexcept {
        Value t(std::move(o));
        swap(t);
        return *this;
    }
    ~Value() {
        if (is_heap()) detail::release(p_);
    }
    void swap(Value& o) noexcept {
        std::swap(tag_, o.tag_);
        std::swap(i_, o.i_);
    }

    // ---- factories ----------------------------------------------------------
    static Value null() noexcept { return Value(); }
    static Value boolean(bool b) noexcept { return Value(b ? Tag::True : Tag::False, 0); }
    static Value integer(std::int64_t i) noexcept { return Value(Tag::Int, i); }
    static Value number(Number n) noexcept;
    static Value from_double(double d) { return number(Number::from_double(d)); }
    static Value string(std::string_view s);
    // The parts joined, in one allocation.
    static Value string_concat(std::span<const std::string_view> parts);
    static Value empty_array() noexcept { return Value(Tag::Array, 0); }
    static Value empty_set() noexcept { return Value(Tag::Set, 0); }
    static Value empty_object() noexcept { return Value(Tag::Object, 0); }
    // Convenience (tests, constants): copies the elements and canonicalises.
    static Value array(std::initializer_list<Value> items);
    // An array of copies of `items`, in one allocation (no builder).
    static Value array_of(std::span<const Value> items);
    static Value set(std::initializer_list<Value> items);
    // Duplicate keys: the last one wins.
    static Value object(std::initializer_list<std::pair<Value, Value>> entries);

    // ---- inspection -----------------------------------------------------------
    Kind kind() const noexcept { return kKindOf[static_cast<unsigned>(tag_)]; }
    std::string_view type_name() const noexcept { return runtime::type_name(kind()); }
    bool is_null() const noexcept { return tag_ == Tag::Null; }
    bool is_bool() const noexcept { return tag_ == Tag::False || tag_ == Tag::True; }
    bool is_number() const noexcept { return kind() == Kind::Number; }
    bool is_string() const noexcept { return tag_ == Tag::String; }
    bool is_array() const noexcept { return tag_ == Tag::Array; }
    bool is_set() const noexcept { return tag_ == Tag::Set; }
    bool is_object() const noexcept { return tag_ == Tag::Object; }

    // Accessors: calling one on the wrong kind gives the empty/zero result
    // (false, 0, "", empty span), never undefined behaviour.
    bool as_bool() const noexcept { return tag_ == Tag::True; }
    Number as_number() const noexcept;
    // Fast path: true when this is an integral number that fits int64.
    bool as_int64(std::int64_t& out) const noexcept {
        if (tag_ == Tag::Int) {
            out = i_;
            return true;
        }
        return tag_ == Tag::NumHeap && as_number().to_int64(out);
    }
    // A number written as an integer (Number::written_int64; 1.0 and 1e0 are not).
    bool as_written_int64(std::int64_t& out) const noexcept {
        if (tag_ == Tag::Int) {
            out = i_;
            return true;
        }
        return tag_ == Tag::NumHeap && as_number().written_int64(out);
    }
    inline std::string_view as_string() const noexcept;
    inline std::span<const Value> array_elements() const noexcept;
    inline std::span<const Value> set_elements() const noexcept;
    inline std::span<const ObjectEntry> object_entries() const noexcept;
    // Number of bytes (string), elements (array, set) or entries (object); 0 otherwise.
    inline std::size_t size() const noexcept;

    // Object lookup (binary search). nullptr when absent or not an object.
    const Value* find(const Value& key) const noexcept;
    const Value* find(std::string_view key) const noexcept;
    // Set membership (binary search). false when not a set.
    bool contains(const Value& v) const noexcept;

    std::uint64_t hash() const noexcept;

    friend int compare(const Value& a, const Value& b) noexcept;
    friend bool operator==(const Value& a, const Value& b) noexcept;
    friend bool operator!=(const Value& a, const Value& b) noexcept { return !(a == b); }
    friend bool operator<(const Value& a, const Value& b) noexcept { return compare(a, b) < 0; }
    friend bool operator>(const Value& a, const Value& b) noexcept { return compare(a, b) > 0; }
    friend bool operator<=(const Value& a, const Value& b) noexcept { return compare(a, b) <= 0; }
    friend bool operator>=(const Value& a, const Value& b) noexcept { return compare(a, b) >= 0; }

    // Identity: both refer to the same heap node (or are the same inline value).
    bool identical(const Value& o) const noexcept { return tag_ == o.tag_ && i_ == o.i_; }

    // ---- internals (used by builders and the node code) -------------------------
    enum class Tag : std::uint8_t { Null, False, True, Int, Float, NumHeap, String, Array, Object, Set };
    Tag tag() const noexcept { return tag_; }
    const detail::Node* node() const noexcept { return is_heap() ? p_ : nullptr; }
    static Value adopt(Tag t, detail::Node* n) noexcept {  // takes ownership of one ref
        Value v;
        v.tag_ = t;
        v.p_ = n;
        return v;
    }

private:
    Value(Tag t, std::int64_t bits) noexcept : tag_(t), i_(bits) {}
    bool is_heap() const noexcept { return (tag_ >= Tag::NumHeap) && p_ != nullptr; }
    static constexpr Kind kKindOf[] = {Kind::Null,   Kind::Boolean, Kind::Boolean, Kind::Number, Kind::Number,
                                       Kind::Number, Kind::String,  Kind::Array,   Kind::Object, Kind::Set};

    Tag tag_;
    union {
        std::int64_t i_;
        double d_;
        detail::Node* p_;
    };
};

static_assert(sizeof(Value) == 16, "Value must stay 16 bytes");

struct ObjectEntry {
    Value key;
    Value value;
};

std::string_view type_name(const Value& v) noexcept;

// ---- heap nodes -----------------------------------------------------------------
namespace detail {

struct StringNode : Node {
    std::size_t size;
    mutable std::atomic<std::uint64_t> hash{0};
    explicit StringNode(std::size_t n) : Node(NodeType::String), size(n) {}
    char* data() noexcept { return reinterpret_cast<char*>(this + 1); }
    const char* data() const noexcept { return reinterpret_cast<const char*>(this + 1); }
};

// Array or set: `size` Values stored right after the header.
struct SeqNode : Node {
    std::size_t size;
    mutable std::atomic<std::uint64_t> hash{0};
    SeqNode(NodeType t, std::size_t n) : Node(t), size(n) {}
    Value* data() noexcept { return reinterpret_cast<Value*>(this + 1); }
    const Value* data() const noexcept { return reinterpret_cast<const Value*>(this + 1); }
};

struct ObjectNode : Node {
    std::size_t size;
    mutable std::atomic<std::uint64_t> hash{0};
    explicit ObjectNode(std::size_t n) : Node(NodeType::Object), size(n) {}
    ObjectEntry* data() noexcept { return reinterpret_cast<ObjectEntry*>(this + 1); }
    const ObjectEntry* data() const noexcept { return reinterpret_cast<const ObjectEntry*>(this + 1); }
};

static_assert(sizeof(StringNode) % alignof(Value) == 0);
static_assert(sizeof(SeqNode) % alignof(Value) == 0);
static_assert(sizeof(ObjectNode) % alignof(ObjectEntry) == 0);

}  // namespace detail

inline std::string_view Value::as_string() const noexcept {
    if (tag_ != Tag::String || !p_) return {};
    auto* n = static_cast<const detail::StringNode*>(p_);
    return {n->data(), n->size};
}

inline std::span<const Value> Value::array_elements() const noexcept {
    if (tag_ != Tag::Array || !p_) return {};
    auto* n = static_cast<const detail::SeqNode*>(p_);
    detail::ensure_materialized(n);
    return {n->data(), n->size};
}

inline std::span<const Value> Value::set_elements() const noexcept {
    if (tag_ != Tag::Set || !p_) return {};
    auto* n = static_cast<const detail::SeqNode*>(p_);
    return {n->data(), n->size};
}

inline std::span<const ObjectEntry> Value::object_entries() const noexcept {
    if (tag_ != Tag::Object || !p_) return {};
    auto* n = static_cast<const detail::ObjectNode*>(p_);
    detail::ensure_materialized(n);
    return {n->data(), n->size};
}

inline std::size_t Value::size() const noexcept {
    if (tag_ < Tag::String || !p_) return 0;
    switch (tag_) {
        case Tag::String: return static_cast<const detail::StringNode*>(p_)->size;
        case Tag::Array:
        case Tag::Set: return static_cast<const detail::SeqNode*>(p_)->size;
        case Tag::Object:  // a lazy object's final size is known once duplicate keys are dropped
            detail::ensure_materialized(p_);
            return static_cast<const detail::ObjectNode*>(p_)->size;
        default: return 0;
    }
}

// ---- builders ---------------------------------------------------------------------
// Each builder collects Values (moved in, no deep copies) and allocates the
// final node once. A builder is single-use: build() leaves it empty.

struct WorkBudget;  // work_budget.hpp

class ArrayBuilder {
public:
    ArrayBuilder() = default;
    explicit ArrayBuilder(std::size_t reserve) { items_.reserve(reserve); }
    void reserve(std::size_t n) { items_.reserve(n); }
    void push_back(Value v) { items_.push_back(std::move(v)); }
    // For a builtin's large result: an element is work, and the list grows
    // only within the budget's memory limit. False: stop now (not added).
    bool push_back(Value v, WorkBudget& budget);
    std::size_t size() const noexcept { return items_.size(); }
    Value build();

private:
    std::vector<Value> items_;
};

// Sorts and de-duplicates once, in build().
class SetBuilder {
public:
    SetBuilder() = default;
    explicit SetBuilder(std::size_t reserve) { items_.reserve(reserve); }
    void reserve(std::size_t n) { items_.reserve(n); }
    void insert(Value v) {
        // A rule's set (deny messages) usually holds a few: one allocation
        // for up to 16 instead of growing through 1, 2, 4, 8.
        if (items_.capacity() == 0) items_.reserve(16);
        items_.push_back(std::move(v));
    }
    // For a builtin's large result: an element is work, and the list grows
    // only within the budget's memory limit. False: stop now (not added).
    bool insert(Value v, WorkBudget& budget);
    std::size_t size() const noexcept { return items_.size(); }  // before de-duplication
    Value build();
    // For a builtin's large result: sorts asking `budget` as it goes, and
    // allocates the set only within its memory limit; nullopt when the
    // evaluation must stop.
    std::optional<Value> build(WorkBudget& budget);

private:
    std::vector<Value> items_;
};

enum class DuplicateKeys : std::uint8_t {
    LastWins,  // JSON semantics (Go's encoding/json): the later entry replaces
    FirstWins,
};

// Sorts by key once, in build(). build_checked() reports a key given twice
// with different values (Rego: "object keys must be unique"); a key given
// twice with equal values is not a conflict.
class ObjectBuilder {
public:
    struct Checked {
        Value value;  // the object (LastWins) when !conflict
        bool conflict = false;
        Value key;     // the conflicting key
        Value first;   // its first value
        Value second;  // a different later value
    };

    ObjectBuilder() = default;
    explicit ObjectBuilder(std::size_t reserve) { items_.reserve(reserve); }
    void reserve(std::size_t n) { items_.reserve(n); }
    void insert(Value key, Value value) { items_.push_back({std::move(key), std::move(value)}); }
    std::size_t size() const noexcept { return items_.size(); }  // before de-duplication
    Value build(DuplicateKeys dup = DuplicateKeys::LastWins);
    Checked build_checked();

private:
    std::vector<ObjectEntry> items_;
};

}  // namespace gavel::runtime

template <>
struct std::hash<gavel::runtime::Value> {
    std::size_t operator()(const gavel::runtime::Value& v) const noexcept { return v.hash(); }
};
