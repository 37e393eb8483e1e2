// Field selection merging; see overlapping_fields.hpp.

#include "stdlib/graphql/overlapping_fields.hpp"

#include "stdlib/graphql/parser.hpp"

#include <map>
#include <set>
#include <string>

namespace gavel::stdlib::graphql {

namespace {

// Past this much work (fields collected plus pairs compared, over the whole
// document) a document is refused rather than checked: merging is quadratic
// and fragment spreads can multiply the work.
constexpr std::size_t kMaxWork = 1000000;

struct FieldEntry {
    const Definition* parent = nullptr;
    const Selection* field = nullptr;
    std::shared_ptr<TypeRef> type;  // null when the field is unknown
};

std::string q(std::string_view s) { return '"' + std::string(s) + "\""; }

std::string value_key(const Value* v) {
    if (!v) return "<nil>";
    std::string s = std::to_string(static_cast<int>(v->kind)) + ":" + v->raw;
    if (!v->children.empty()) {
        s += "{";
        for (const auto& c : v->children) s += c.name + "=" + value_key(c.value.get()) + ",";
        s += "}";
    }
    return s;
}

bool same_arguments(const Selection& a, const Selection& b) {
    if (a.arguments.size() != b.arguments.size()) return false;
    for (const auto& x : a.arguments) {
        bool match = false;
        for (const auto& y : b.arguments)
            if (x.name == y.name && value_key(x.value.get()) == value_key(y.value.get())) match = true;
        if (!match) return false;
    }
    return true;
}

bool is_leaf(const Schema& s, const std::string& name) {
    const Definition* d = s.type(name);
    return d && (d->kind == "SCALAR" || d->kind == "ENUM");
}

// graphql-js doTypesConflict, wrappers compared outermost first.
bool types_conflict(const Schema& s, const TypeRef& a, const TypeRef& b) {
    if (a.non_null || b.non_null) {
        if (!(a.non_null && b.non_null)) return true;
        TypeRef x = a, y = b;
        x.non_null = y.non_null = false;
        return types_conflict(s, x, y);
    }
    if (a.elem || b.elem) {
        if (!(a.elem && b.elem)) return true;
        return types_conflict(s, *a.elem, *b.elem);
    }
    if (is_leaf(s, a.named) || is_leaf(s, b.named)) return a.named != b.named;
    return false;
}

class Merger {
public:
    Merger(const Schema& s, const FragmentIndex& f, std::size_t& work) : s_(s), fragments_(f), work_(work) {}

    using FieldMap = std::map<std::string, std::vector<FieldEntry>>;

    // Fields by response name; spreads are followed once each. Long spread
    // chains stop at kMaxDepth (and the document is then refused).
    void collect(const std::vector<Selection>& sels, const Definition* parent, FieldMap& out,
                 std::set<std::string>& fragments, int depth = 0) {
        if (depth > kMaxDepth || work_ > kMaxWork) {
            exhausted_ = true;
            return;
        }
        for (const auto& sel : sels) {
            ++work_;
            switch (sel.kind) {
                case SelectionKind::Field: {
                    FieldEntry e;
                    e.parent = parent;
                    e.field = &sel;
                    if (sel.name == "__typename") {
                        e.type = std::make_shared<TypeRef>(TypeRef{"String", nullptr, true, {}});
                    } else if (parent) {
                        for (const auto& fd : parent->fields)
                            if (fd.name == sel.name) e.type = fd.type;
                    }
                    out[sel.alias.empty() ? sel.name : sel.alias].push_back(std::move(e));
                    break;
                }
                case SelectionKind::InlineFragment:
                    collect(sel.selection_set, sel.type_condition.empty() ? parent : s_.type(sel.type_condition), out,
                            fragments, depth + 1);
                    break;
                case SelectionKind::FragmentSpread:
                    if (!fragments.insert(sel.name).second) break;
                    if (auto it = fragments_.find(sel.name); it != fragments_.end())
                        collect(it->second->selection_set, s_.type(it->second->type_condition), out, fragments,
                                depth + 1);
                    break;
            }
        }
    }

    // Why two fields with one response name cannot merge, or "" if they can.
    std::string conflict(const FieldEntry& a, const FieldEntry& b, bool parents_exclusive) {
        if (++work_ > kMaxWork) exhausted_ = true;
        if (exhausted_) return {};
        bool exclusive = parents_exclusive || (a.parent && b.parent && a.parent != b.parent &&
                                               a.parent->kind == "OBJECT" && b.parent->kind == "OBJECT");
        if (!exclusive) {
            if (a.field->name != b.field->name)
                return q(a.field->name) + " and " + q(b.field->name) + " are different fields";
            if (!same_arguments(*a.field, *b.field)) return "they have differing arguments";
        }
        if (a.type && b.type && types_conflict(s_, *a.type, *b.type))
            return "they return conflicting types " + q(a.type->to_string()) + " and " + q(b.type->to_string());
        if (a.field->selection_set.empty() || b.field->selection_set.empty()) return {};
        FieldMap left, right;
        std::set<std::string> lf, rf;
        collect(a.field->selection_set, a.type ? s_.type(a.type->innermost_name()) : nullptr, left, lf);
        collect(b.field->selection_set, b.type ? s_.type(b.type->innermost_name()) : nullptr, right, rf);
        std::string reasons;
        for (const auto& [name, xs] : left) {
            auto it = right.find(name);
            if (it == right.end()) continue;
            std::string why = first_conflict(xs, it->second, exclusive);
            if (exhausted_) return {};
            if (!why.empty())
                reasons += (reasons.empty() ? "" : " and ") + ("subfields " + q(name) + " conflict because " + why);
        }
        return reasons;
    }

    std::string first_conflict(const std::vector<FieldEntry>& xs, const std::vector<FieldEntry>& ys, bool exclusive) {
        for (const auto& x : xs)
            for (const auto& y : ys) {
                std::string why = conflict(x, y, exclusive);
                if (exhausted_) return {};
                if (!why.empty()) return why;
            }
        return {};
    }

    std::optional<Error> within(const std::vector<Selection>& sels, const Definition* parent) {
        Error too_complex{"query is too complex to check field merging", sels.empty() ? Position{} : sels.front().pos};
        FieldMap fields;
        std::set<std::string> fragments;
        collect(sels, parent, fields, fragments);
        if (exhausted_) return too_complex;
        for (const auto& [name, entries] : fields)
            for (std::size_t i = 0; i < entries.size(); ++i)
                for (std::size_t j = i + 1; j < entries.size(); ++j) {
                    std::string why = conflict(entries[i], entries[j], false);
                    if (exhausted_) return too_complex;
                    if (!why.empty())
                        return Error{"Fields " + q(name) + " conflict because " + why +
                                         ". Use different aliases on the fields to fetch both if this was intentional.",
                                     entries[i].field->pos};
                }
        return std::nullopt;
    }

private:
    const Schema& s_;
    const FragmentIndex& fragments_;
    std::size_t& work_;
    bool exhausted_ = false;
};

}  // namespace

std::optional<Error> find_field_conflict(const Schema& schema, const FragmentIndex& fragments,
                                         const std::vector<Selection>& selections, const Definition* parent,
                                         std::size_t& comparisons) {
    return Merger(schema, fragments, comparisons).within(selections, parent);
}

}  // namespace gavel::stdlib::graphql
