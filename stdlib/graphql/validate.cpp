// Query validation; see validate.hpp. Fragments are checked once, at their
// definition; what they contribute to each operation (variable usages,
// further spreads) is summarised per fragment and followed per operation.

#include "stdlib/graphql/validate.hpp"

#include "stdlib/graphql/overlapping_fields.hpp"
#include "stdlib/graphql/suggestions.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

namespace gavel::stdlib::graphql {

namespace {

std::string q(std::string_view s) { return "\"" + std::string(s) + "\""; }

// How gqlparser prints a literal in messages.
std::string value_text(const Value* v) {
    if (!v) return "<nil>";
    switch (v->kind) {
        case ValueKind::Variable: return "$" + v->raw;
        case ValueKind::String:
        case ValueKind::Block: return q(v->raw);
        case ValueKind::List: {
            std::string s = "[";
            for (std::size_t i = 0; i < v->children.size(); ++i)
                s += (i ? ", " : "") + value_text(v->children[i].value.get());
            return s + "]";
        }
        case ValueKind::Object: {
            std::string s = "{";
            for (std::size_t i = 0; i < v->children.size(); ++i)
                s += (i ? ", " : "") + v->children[i].name + ": " + value_text(v->children[i].value.get());
            return s + "}";
        }
        default: return v->raw;
    }
}

struct VariableUsage {
    std::string name;
    std::shared_ptr<TypeRef> expected;  // null when the position's type is unknown
    bool location_has_default = false;
    Position pos;
};

// What walking a selection set found that matters per operation.
struct Summary {
    std::vector<VariableUsage> variables;
    std::vector<std::string> spreads;
};

class Validator {
public:
    Validator(const Schema& s, const QueryDocument& d) : s_(s), doc_(d) {
        for (const auto& f : doc_.fragments) fragment_index_.emplace(f.name, &f);  // the first definition wins
    }

    std::optional<Error> run() {
        document_rules();
        // Fragments are summarised first (operations need their variable
        // usages), but their problems are reported after the operations',
        // in document walk order like gqlparser.
        std::vector<Error> before = std::move(errors_);
        errors_.clear();
        for (const auto& f : doc_.fragments) {
            Summary sum;
            const Definition* on = fragment_type(f.type_condition, f.pos, &f.name);
            directives(f.directives, "FRAGMENT_DEFINITION", sum);
            merge_check(f.selection_set, on);
            selections(f.selection_set, on, sum);
            fragment_summaries_[f.name] = std::move(sum);
        }
        std::vector<Error> fragment_errors = std::move(errors_);
        errors_ = std::move(before);
        for (const auto& op : doc_.operations) operation(op);
        errors_.insert(errors_.end(), fragment_errors.begin(), fragment_errors.end());
        unused_fragments();
        if (errors_.empty()) return std::nullopt;
        return errors_.front();
    }

private:
    void report(std::string message, Position pos) { errors_.push_back(Error{std::move(message), pos}); }

    // ---- whole-document rules ----
    void document_rules() {
        std::set<std::string> op_names, frag_names;
        for (const auto& op : doc_.operations) {
            if (op.name.empty() && doc_.operations.size() > 1)
                report("This anonymous operation must be the only defined operation.", op.pos);
            if (!op.name.empty() && !op_names.insert(op.name).second)
                report("There can be only one operation named " + q(op.name) + ".", op.pos);
        }
        for (const auto& f : doc_.fragments)
            if (!frag_names.insert(f.name).second)
                report("There can be only one fragment named " + q(f.name) + ".", f.pos);
        fragment_cycles();
    }

    const Fragment* fragment(std::string_view name) const {
        auto it = fragment_index_.find(name);
        return it == fragment_index_.end() ? nullptr : it->second;
    }

    static void collect_spreads(const std::vector<Selection>& sels, std::vector<const Selection*>& out) {
        for (const auto& s : sels) {
            if (s.kind == SelectionKind::FragmentSpread) out.push_back(&s);
            collect_spreads(s.selection_set, out);
        }
    }

    // graphql-js NoFragmentCycles: one depth-first pass over all fragments,
    // iterative so that long spread chains cannot exhaust the stack.
    void fragment_cycles() {
        struct Frame {
            std::string name;
            std::vector<const Selection*> spreads;
            std::size_t next = 0;
        };
        std::set<std::string> visited;
        std::map<std::string, std::size_t> path_index;  // fragment -> its index in `path`
        std::vector<const Selection*> path;             // spreads followed so far
        for (const auto& root : doc_.fragments) {
            if (visited.count(root.name)) continue;
            std::vector<Frame> stack;
            auto enter = [&](const Fragment& f) {
                visited.insert(f.name);
                Frame frame{f.name, {}, 0};
                collect_spreads(f.selection_set, frame.spreads);
                path_index[f.name] = path.size();
                stack.push_back(std::move(frame));
            };
            enter(root);
            while (!stack.empty()) {
                Frame& top = stack.back();
                if (top.next == top.spreads.size()) {
                    path_index.erase(top.name);
                    stack.pop_back();
                    if (!path.empty() && !stack.empty()) path.pop_back();
                    continue;
                }
                const Selection* spread = top.spreads[top.next++];
                auto cycle = path_index.find(spread->name);
                if (cycle == path_index.end()) {
                    const Fragment* next = fragment(spread->name);
                    if (next && !visited.count(next->name)) {
                        path.push_back(spread);
                        enter(*next);
                    }
                    continue;
                }
                std::string via;
                for (std::size_t i = cycle->second; i < path.size(); ++i)
                    via += (via.empty() ? "" : ", ") + q(path[i]->name);
                report("Cannot spread fragment " + q(spread->name) + " within itself" +
                           (via.empty() ? "" : " via " + via) + ".",
                       cycle->second < path.size() ? path[cycle->second]->pos : spread->pos);
            }
        }
    }

    void unused_fragments() {
        std::set<std::string> reached;
        std::vector<std::string> work;
        for (const auto& op : doc_.operations) {
            std::vector<const Selection*> spreads;
            collect_spreads(op.selection_set, spreads);
            for (auto* sp : spreads) work.push_back(sp->name);
        }
        while (!work.empty()) {
            std::string name = work.back();
            work.pop_back();
            if (!reached.insert(name).second) continue;
            auto it = fragment_summaries_.find(name);
            if (it != fragment_summaries_.end())
                for (const auto& n : it->second.spreads) work.push_back(n);
        }
        for (const auto& f : doc_.fragments)
            if (!reached.count(f.name)) report("Fragment " + q(f.name) + " is never used.", f.pos);
    }

    // ---- operations and variables ----
    void operation(const Operation& op) {
        std::string root = op.operation == "query"          ? s_.query_type
                           : op.operation == "mutation"     ? s_.mutation_type
                           : op.operation == "subscription" ? s_.subscription_type
                                                            : std::string{};
        const Definition* root_type = root.empty() ? nullptr : s_.type(root);
        if (!root_type) report("Schema does not support operation type " + q(op.operation), op.pos);

        std::map<std::string, const VariableDefinition*> defined;
        Summary ignored;
        for (const auto& v : op.variables) {
            if (!defined.emplace(v.variable, &v).second)
                report("There can be only one variable named " + q("$" + v.variable) + ".", v.pos);
            if (!v.type) continue;
            const Definition* t = s_.type(v.type->innermost_name());
            if (!t)
                report("Unknown type " + q(v.type->innermost_name()) + "." +
                           did_you_mean("Did you mean", v.type->innermost_name(), type_names(), true),
                       v.type->pos);
            else if (!is_input_kind(t->kind))
                report("Variable " + q("$" + v.variable) + " cannot be non-input type " + q(v.type->to_string()) + ".",
                       v.pos);
            if (v.default_value && t) value(*v.default_value, v.type, ignored);
            directives(v.directives, "VARIABLE_DEFINITION", ignored);
        }
        Summary sum;  // variable usages count in operation directives and selections
        directives(op.directives,
                   op.operation == "mutation"       ? "MUTATION"
                   : op.operation == "subscription" ? "SUBSCRIPTION"
                                                    : "QUERY",
                   sum);

        merge_check(op.selection_set, root_type);
        selections(op.selection_set, root_type, sum);
        if (op.operation == "subscription") single_root_field(op);

        // Variable usages in this operation and every fragment it reaches.
        std::vector<VariableUsage> usages = sum.variables;
        std::set<std::string> seen;
        std::vector<std::string> work = sum.spreads;
        while (!work.empty()) {
            std::string name = work.back();
            work.pop_back();
            if (!seen.insert(name).second) continue;
            auto it = fragment_summaries_.find(name);
            if (it == fragment_summaries_.end()) continue;
            usages.insert(usages.end(), it->second.variables.begin(), it->second.variables.end());
            work.insert(work.end(), it->second.spreads.begin(), it->second.spreads.end());
        }
        std::set<std::string> used;
        for (const auto& u : usages) {
            used.insert(u.name);
            auto it = defined.find(u.name);
            if (it == defined.end()) {
                report(op.name.empty()
                           ? "Variable " + q("$" + u.name) + " is not defined."
                           : "Variable " + q("$" + u.name) + " is not defined by operation " + q(op.name) + ".",
                       u.pos);
                continue;
            }
            allowed_position(*it->second, u);
        }
        for (const auto& v : op.variables)
            if (!used.count(v.variable))
                report(op.name.empty()
                           ? "Variable " + q("$" + v.variable) + " is never used."
                           : "Variable " + q("$" + v.variable) + " is never used in operation " + q(op.name) + ".",
                       v.pos);
    }

    // SingleFieldSubscriptions: one top-level response name (fragments
    // included), and no introspection field there.
    void single_root_field(const Operation& op) {
        std::vector<std::pair<std::string, const Selection*>> fields;  // response name, field
        std::set<std::string> seen_fragments;
        std::vector<const std::vector<Selection>*> work{&op.selection_set};
        while (!work.empty()) {
            const auto* sels = work.back();
            work.pop_back();
            for (const auto& s : *sels) {
                if (s.kind == SelectionKind::Field) {
                    fields.emplace_back(s.alias.empty() ? s.name : s.alias, &s);
                } else if (s.kind == SelectionKind::InlineFragment) {
                    work.push_back(&s.selection_set);
                } else if (seen_fragments.insert(s.name).second) {
                    if (const Fragment* f = fragment(s.name)) work.push_back(&f->selection_set);
                }
            }
        }
        std::set<std::string> names;
        for (const auto& [name, field] : fields) names.insert(name);
        std::string who = op.name.empty() ? "Anonymous Subscription" : "Subscription " + q(op.name);
        if (names.size() > 1) report(who + " must select only one top level field.", op.pos);
        for (const auto& [name, field] : fields)
            if (field->name.rfind("__", 0) == 0) {
                report(who + " must not select an introspection top level field.", field->pos);
                break;
            }
    }

    // gqlparser's VariablesInAllowedPosition: a default (on the variable or
    // at the location) lets a nullable variable fill a non-null position.
    void allowed_position(const VariableDefinition& def, const VariableUsage& use) {
        if (!use.expected || !def.type) return;
        TypeRef expected = *use.expected;
        if ((def.default_value && def.default_value->kind != ValueKind::Null) || use.location_has_default)
            expected.non_null = false;
        if (!compatible(*def.type, expected))
            report("Variable " + q("$" + def.variable) + " of type " + q(def.type->to_string()) +
                       " used in position expecting type " + q(use.expected->to_string()) + ".",
                   use.pos);
    }

    // gqlparser's Type.IsCompatible.
    static bool compatible(const TypeRef& t, const TypeRef& other) {
        if (t.named != other.named) return false;
        if (t.elem && !other.elem) return false;
        if (t.elem && !compatible(*t.elem, *other.elem)) return false;
        if (other.non_null) return t.non_null;
        return true;
    }

    std::vector<std::string> type_names() const {
        std::vector<std::string> names;
        for (const auto& [name, def] : s_.types) names.push_back(name);
        return names;
    }

    // ---- selections ----
    const Definition* fragment_type(const std::string& type_condition, Position pos, const std::string* fragment_name) {
        if (type_condition.empty()) return nullptr;
        const Definition* t = s_.type(type_condition);
        if (!t) {
            report("Unknown type " + q(type_condition) + "." +
                       did_you_mean("Did you mean", type_condition, type_names(), true),
                   pos);
            return nullptr;
        }
        if (!is_composite_kind(t->kind)) {
            report(fragment_name ? "Fragment " + q(*fragment_name) + " cannot condition on non composite type " +
                                       q(type_condition) + "."
                                 : "Fragment cannot condition on non composite type " + q(type_condition) + ".",
                   pos);
            return nullptr;
        }
        return t;
    }

    // The object types a composite type may be at run time.
    std::set<std::string> possible(const Definition& t) const {
        std::set<std::string> out;
        if (t.kind == "OBJECT") {
            out.insert(t.name);
        } else if (auto it = s_.possible_types.find(t.name); it != s_.possible_types.end()) {
            out.insert(it->second.begin(), it->second.end());
        }
        return out;
    }

    bool overlap(const Definition& a, const Definition& b) const {
        auto pa = possible(a), pb = possible(b);
        return std::any_of(pa.begin(), pa.end(), [&](const std::string& n) { return pb.count(n) > 0; });
    }

    void selections(const std::vector<Selection>& sels, const Definition* parent, Summary& sum) {
        for (const auto& s : sels) {
            switch (s.kind) {
                case SelectionKind::Field: field(s, parent, sum); break;
                case SelectionKind::InlineFragment: {
                    const Definition* on = fragment_type(s.type_condition, s.pos, nullptr);
                    if (on && parent && is_composite_kind(parent->kind) && !overlap(*on, *parent))
                        report("Fragment cannot be spread here as objects of type " + q(parent->name) +
                                   " can never be of type " + q(on->name) + ".",
                               s.pos);
                    directives(s.directives, "INLINE_FRAGMENT", sum);
                    merge_check(s.selection_set, s.type_condition.empty() ? parent : on);
                    selections(s.selection_set, s.type_condition.empty() ? parent : on, sum);
                    break;
                }
                case SelectionKind::FragmentSpread: {
                    sum.spreads.push_back(s.name);
                    directives(s.directives, "FRAGMENT_SPREAD", sum);
                    const Fragment* f = fragment(s.name);
                    if (!f) {
                        report("Unknown fragment " + q(s.name) + ".", s.pos);
                        break;
                    }
                    const Definition* on = s_.type(f->type_condition);
                    if (on && parent && is_composite_kind(on->kind) && is_composite_kind(parent->kind) &&
                        !overlap(*on, *parent))
                        report("Fragment " + q(s.name) + " cannot be spread here as objects of type " +
                                   q(parent->name) + " can never be of type " + q(on->name) + ".",
                               s.pos);
                    break;
                }
            }
        }
    }

    // FieldsOnCorrectType's hint: for an abstract type, the types that do
    // have the field (interfaces first, most used first); else similar names.
    std::string field_hint(const Definition& parent, const std::string& name) const {
        auto has_field = [&](const Definition& d) {
            return std::any_of(d.fields.begin(), d.fields.end(),
                               [&](const FieldDefinition& f) { return f.name == name; });
        };
        if (parent.kind == "INTERFACE" || parent.kind == "UNION") {
            std::vector<std::string> objects, interfaces;
            std::map<std::string, int> usage;
            for (const auto& pname : possible(parent)) {
                const Definition* pt = s_.type(pname);
                if (!pt || !has_field(*pt)) continue;
                objects.push_back(pt->name);
                for (const auto& i : pt->interfaces) {
                    const Definition* it = s_.type(i);
                    if (it && has_field(*it)) {
                        if (usage[i]++ == 0) interfaces.push_back(i);
                    }
                }
            }
            std::vector<std::string> types = interfaces;
            types.insert(types.end(), objects.begin(), objects.end());
            std::stable_sort(types.begin(), types.end(), [&](const std::string& a, const std::string& b) {
                int ua = usage.count(a) ? usage.at(a) : 0, ub = usage.count(b) ? usage.at(b) : 0;
                if (ua != ub) return ua > ub;
                return a < b;
            });
            if (!types.empty()) return " Did you mean to use an inline fragment on " + quoted_or_list(types) + "?";
        }
        if (parent.kind != "OBJECT" && parent.kind != "INTERFACE") return {};
        std::vector<std::string> names;
        for (const auto& f : parent.fields) names.push_back(f.name);
        return did_you_mean("Did you mean", name, names, true);
    }

    void field(const Selection& f, const Definition* parent, Summary& sum) {
        const FieldDefinition* def = nullptr;
        FieldDefinition typename_field;
        if (parent) {
            if (f.name == "__typename" && is_composite_kind(parent->kind)) {
                typename_field.name = "__typename";
                typename_field.type = std::make_shared<TypeRef>(TypeRef{"String", nullptr, true, {}});
                def = &typename_field;
            } else {
                for (const auto& fd : parent->fields)
                    if (fd.name == f.name) def = &fd;
                if (!def)
                    report("Cannot query field " + q(f.name) + " on type " + q(parent->name) + "." +
                               field_hint(*parent, f.name),
                           f.pos);
            }
        }
        arguments(f.arguments, def ? &def->arguments : nullptr, sum,
                  [&](const std::string&) { return "on field " + q(parent->name + "." + f.name); });
        if (def) {
            for (const auto& ad : def->arguments) {
                bool given = std::any_of(f.arguments.begin(), f.arguments.end(),
                                         [&](const Argument& a) { return a.name == ad.name; });
                if (!given && ad.type && ad.type->non_null && !ad.default_value)
                    report("Field " + q(f.name) + " argument " + q(ad.name) + " of type " + q(ad.type->to_string()) +
                               " is required, but it was not provided.",
                           f.pos);
            }
        }
        directives(f.directives, "FIELD", sum);

        const Definition* type = def && def->type ? s_.type(def->type->innermost_name()) : nullptr;
        if (type) {
            bool leaf = type->kind == "SCALAR" || type->kind == "ENUM";
            if (leaf && !f.selection_set.empty())
                report("Field " + q(f.name) + " must not have a selection since type " + q(def->type->to_string()) +
                           " has no subfields.",
                       f.pos);
            if (!leaf && f.selection_set.empty())
                report("Field " + q(f.name) + " of type " + q(def->type->to_string()) +
                           " must have a selection of subfields. Did you mean " + q(f.name + " { ... }") + "?",
                       f.pos);
        }
        if (!f.selection_set.empty()) merge_check(f.selection_set, type);
        selections(f.selection_set, type, sum);
    }

    void merge_check(const std::vector<Selection>& sels, const Definition* parent) {
        if (merge_refused_) return;  // reported once; later checks would only repeat the work
        if (auto e = find_field_conflict(s_, fragment_index_, sels, parent, merge_work_)) {
            merge_refused_ = e->message.rfind("query is too complex", 0) == 0;
            errors_.push_back(*e);
        }
    }

    template <typename Where>
    void arguments(const std::vector<Argument>& args, const std::vector<ArgumentDefinition>* defs, Summary& sum,
                   Where&& where) {
        std::set<std::string> seen;
        for (const auto& a : args) {
            if (!seen.insert(a.name).second) report("There can be only one argument named " + q(a.name) + ".", a.pos);
            const ArgumentDefinition* def = nullptr;
            if (defs) {
                for (const auto& d : *defs)
                    if (d.name == a.name) def = &d;
                if (!def) {
                    std::vector<std::string> names;
                    for (const auto& d : *defs) names.push_back(d.name);
                    report("Unknown argument " + q(a.name) + " " + where(a.name) + "." +
                               did_you_mean("Did you mean", a.name, names, true),
                           a.pos);
                }
            }
            if (a.value) value(*a.value, def ? def->type : nullptr, sum, def && def->default_value != nullptr);
        }
    }

    void directives(const std::vector<Directive>& dirs, std::string_view location, Summary& sum) {
        std::set<std::string> seen;
        for (const auto& d : dirs) {
            const DirectiveDefinition* def = s_.directive(d.name);
            if (!def) {
                report("Unknown directive " + q("@" + d.name) + ".", d.pos);
            } else {
                if (std::find(def->locations.begin(), def->locations.end(), location) == def->locations.end())
                    report("Directive " + q("@" + d.name) + " may not be used on " + std::string(location) + ".",
                           d.pos);
                if (!def->repeatable && !seen.insert(d.name).second)
                    report("The directive " + q("@" + d.name) + " can only be used once at this location.", d.pos);
                for (const auto& ad : def->arguments) {
                    bool given = std::any_of(d.arguments.begin(), d.arguments.end(),
                                             [&](const Argument& a) { return a.name == ad.name; });
                    if (!given && ad.type && ad.type->non_null && !ad.default_value)
                        report("Directive " + q("@" + d.name) + " argument " + q(ad.name) + " of type " +
                                   q(ad.type->to_string()) + " is required, but it was not provided.",
                               d.pos);
                }
            }
            arguments(d.arguments, def ? &def->arguments : nullptr, sum,
                      [&](const std::string&) { return "on directive " + q("@" + d.name); });
        }
    }

    // ---- literal values (spec 5.6.1, gqlparser's ValuesOfCorrectType) ----
    void value(const Value& v, const std::shared_ptr<TypeRef>& expected, Summary& sum, bool has_default = false) {
        if (v.kind == ValueKind::Variable) {
            sum.variables.push_back(VariableUsage{v.raw, expected, has_default, v.pos});
            return;
        }
        const Definition* def = expected ? s_.type(expected->innermost_name()) : nullptr;
        auto children_untyped = [&] {
            for (const auto& c : v.children)
                if (c.value) value(*c.value, nullptr, sum);
        };
        if (!def) {
            children_untyped();
            return;
        }
        if (v.kind == ValueKind::Null && expected->non_null)
            report("Expected value of type " + q(expected->to_string()) + ", found null.", v.pos);
        static const std::set<std::string> kBuiltinScalars = {"Int", "Float", "String", "Boolean", "ID"};
        if (def->kind == "SCALAR" && !kBuiltinScalars.count(def->name)) {
            children_untyped();  // custom scalars accept any literal
            return;
        }
        auto one_of = [&](std::initializer_list<const char*> names) {
            for (const char* n : names)
                if (def->name == n) return true;
            return false;
        };
        auto enum_names = [&] {
            std::vector<std::string> names;
            for (const auto& e : def->enum_values) names.push_back(e.name);
            return names;
        };
        if ((v.kind == ValueKind::Int && !fits_int64(v.raw)) || (v.kind == ValueKind::Float && !finite_float(v.raw)))
            unexpected_type(v, *expected, *def);

        switch (v.kind) {
            case ValueKind::Null: return;
            case ValueKind::List:
                if (!expected->elem) {
                    unexpected_type(v, *expected, *def);
                    children_untyped();
                    return;
                }
                for (const auto& c : v.children)
                    if (c.value) value(*c.value, expected->elem, sum);
                return;
            case ValueKind::Int:
                if (!one_of({"Int", "Float", "ID"})) unexpected_type(v, *expected, *def);
                return;
            case ValueKind::Float:
                if (!one_of({"Float"})) unexpected_type(v, *expected, *def);
                return;
            case ValueKind::String:
            case ValueKind::Block:
                if (def->kind == "ENUM")
                    report("Enum " + q(expected->to_string()) + " cannot represent non-enum value: " + value_text(&v) +
                               "." + did_you_mean("Did you mean the enum value", v.raw, enum_names(), true),
                           v.pos);
                else if (!one_of({"String", "ID"})) unexpected_type(v, *expected, *def);
                return;
            case ValueKind::Enum:
                if (def->kind != "ENUM") {
                    report(unexpected_type_message(v, *expected, *def), v.pos);
                } else if (std::none_of(def->enum_values.begin(), def->enum_values.end(),
                                        [&](const EnumValueDefinition& e) { return e.name == v.raw; })) {
                    report("Value " + q(v.raw) + " does not exist in " + q(expected->to_string()) + " enum." +
                               did_you_mean("Did you mean the enum value", v.raw, enum_names(), true),
                           v.pos);
                }
                return;
            case ValueKind::Boolean:
                if (!one_of({"Boolean"})) unexpected_type(v, *expected, *def);
                return;
            case ValueKind::Object: {
                for (const auto& f : def->fields) {
                    bool given = std::any_of(v.children.begin(), v.children.end(),
                                             [&](const ChildValue& c) { return c.name == f.name; });
                    if (!given && f.type && f.type->non_null && !f.default_value)
                        report("Field " + q(def->name + "." + f.name) + " of required type " + q(f.type->to_string()) +
                                   " was not provided.",
                               v.pos);
                }
                std::set<std::string> seen;
                for (const auto& c : v.children) {
                    if (!seen.insert(c.name).second)
                        report("There can be only one input field named " + q(c.name) + ".", c.pos);
                    const FieldDefinition* fd = nullptr;
                    for (const auto& f : def->fields)
                        if (f.name == c.name) fd = &f;
                    if (!fd) {
                        std::vector<std::string> names;
                        for (const auto& f : def->fields) names.push_back(f.name);
                        report("Field " + q(c.name) + " is not defined by type " + q(def->name) + "." +
                                   did_you_mean("Did you mean", c.name, names, true),
                               c.pos);
                    }
                    if (c.value) value(*c.value, fd ? fd->type : nullptr, sum, fd && fd->default_value != nullptr);
                }
                return;
            }
            case ValueKind::Variable: return;
        }
    }

    void unexpected_type(const Value& v, const TypeRef& expected, const Definition& def) {
        report(unexpected_type_message(v, expected, def), v.pos);
    }

    // gqlparser picks the message by the expected type's spelling.
    static std::string unexpected_type_message(const Value& v, const TypeRef& expected, const Definition& def) {
        const std::string t = expected.to_string();
        const std::string text = value_text(&v);
        if (t == "Int" || t == "Int!") {
            if (int32_out_of_range(v.raw)) return "Int cannot represent non 32-bit signed integer value: " + text;
            return "Int cannot represent non-integer value: " + text;
        }
        if (t == "String" || t == "String!" || t == "[String]")
            return "String cannot represent a non string value: " + text;
        if (t == "Boolean" || t == "Boolean!") return "Boolean cannot represent a non boolean value: " + text;
        if (t == "Float" || t == "Float!") return "Float cannot represent non numeric value: " + text;
        if (t == "ID" || t == "ID!") return "ID cannot represent a non-string and non-integer value: " + text;
        if (def.kind == "ENUM") return "Enum " + q(t) + " cannot represent non-enum value: " + text + ".";
        return "Expected value of type " + q(t) + ", found " + text + ".";
    }

    // strconv.ParseInt(raw, 10, 64) succeeds.
    static bool fits_int64(const std::string& raw) {
        errno = 0;
        char* end = nullptr;
        std::strtoll(raw.c_str(), &end, 10);
        return errno == 0 && end && *end == '\0';
    }

    // strconv.ParseInt(raw, 10, 32) fails with a range error: an integer
    // literal outside 32 bits.
    static bool int32_out_of_range(const std::string& raw) {
        std::size_t i = raw[0] == '-' || raw[0] == '+' ? 1 : 0;
        if (i >= raw.size()) return false;
        for (std::size_t j = i; j < raw.size(); ++j)
            if (raw[j] < '0' || raw[j] > '9') return false;
        errno = 0;
        long long n = std::strtoll(raw.c_str(), nullptr, 10);
        return errno == ERANGE || n < -2147483648LL || n > 2147483647LL;
    }

    // strconv.ParseFloat(raw, 64) succeeds (no overflow to infinity).
    static bool finite_float(const std::string& raw) {
        errno = 0;
        char* end = nullptr;
        double d = std::strtod(raw.c_str(), &end);
        return !(errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL));
    }

    const Schema& s_;
    const QueryDocument& doc_;
    std::map<std::string, Summary> fragment_summaries_;
    std::vector<Error> errors_;
    std::size_t merge_work_ = 0;
    bool merge_refused_ = false;
    std::map<std::string, const Fragment*, std::less<>> fragment_index_;
};

}  // namespace

std::optional<Error> validate_query(const Schema& schema, const QueryDocument& doc) {
    return Validator(schema, doc).run();
}

}  // namespace gavel::stdlib::graphql
