#include "lang/annotations.hpp"
#include "lang/go_quote.hpp"

#include "lang/json_tree_yaml.hpp"
#include "lang/yaml_plain_scalar.hpp"
#include "lang/parse.hpp"
#include "lang/yaml_node.hpp"
#include "lang/root_document.hpp"
#include "support/go_space.hpp"
#include "support/utf8.hpp"

namespace gavel::lang {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

// go-yaml's complaint about a node of the wrong kind ("cannot unmarshal !!str `x` into ...").
std::string unmarshal_error(const yaml::Node& node, std::string_view into) {
    std::string tag = "!!map", value;
    if (node.is_sequence()) {
        tag = "!!seq";
    } else if (node.is_scalar()) {
        if (!node.tag.empty()) tag = yaml::short_tag(node.tag);
        else if (node.style != yaml::ScalarStyle::Plain) tag = "!!str";
        else tag = yaml::resolved_tag(yaml::resolve_plain_scalar(node.text, yaml::Typing::GoYamlV3));
        const std::string& s = node.text;
        value = s.size() > 10 ? " `" + s.substr(0, 7) + "...`" : " `" + s + "`";
    }
    return "yaml: unmarshal errors:\n  line " + std::to_string(node.mark.line + 1) + ": cannot unmarshal " + tag +
           value + " into " + std::string(into);
}

// OPA's metadataParser: an error naming "line N" of the block is placed at
// the block's Nth comment line after METADATA (0-based, so the line after
// the one named; the last line when past the end), any other at the first.
Location error_location(const std::string& error, const std::vector<const Comment*>& lines, const Location& block) {
    std::string_view e = error;
    constexpr std::string_view yaml = "yaml:", unmarshal = " unmarshal errors:", line = " line ";
    if (e.substr(0, yaml.size()) != yaml) return lines.empty() ? block : lines.front()->loc;
    e.remove_prefix(yaml.size());
    if (e.substr(0, unmarshal.size()) == unmarshal) {
        e.remove_prefix(unmarshal.size());
        while (!e.empty() && (e.front() == '\n' || e.front() == ' ' || e.front() == '\t')) e.remove_prefix(1);
        e = std::string_view(e.data() - 1, e.size() + 1);  // the regexp's " line" takes one blank back
    }
    if (e.substr(0, line.size()) != line) return lines.empty() ? block : lines.front()->loc;
    e.remove_prefix(line.size());
    std::size_t n = 0, digits = 0;
    while (digits < e.size() && e[digits] >= '0' && e[digits] <= '9')
        n = n * 10 + static_cast<std::size_t>(e[digits++] - '0');
    if (digits == 0 || digits >= e.size() || e[digits] != ':' || lines.empty())
        return lines.empty() ? block : lines.front()->loc;
    return n >= lines.size() ? lines.back()->loc : lines[n]->loc;
}

// Go's %+q of the first rune of `s` (U+FFFD when there is none or it is not UTF-8).
std::string quote_first_rune(std::string_view s) {
    uint32_t cp = s.empty() ? support::utf8::kReplacement : support::utf8::decode_rune(s, 0).rune;
    static const char* hex = "0123456789abcdef";
    auto escaped = [&](char kind, int digits) {
        std::string out = "'\\";
        out += kind;
        for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4) out += hex[(cp >> shift) & 15];
        return out + "'";
    };
    switch (cp) {
        case '\a': return "'\\a'";
        case '\b': return "'\\b'";
        case '\f': return "'\\f'";
        case '\n': return "'\\n'";
        case '\r': return "'\\r'";
        case '\t': return "'\\t'";
        case '\v': return "'\\v'";
        case '\'': return "'\\''";
        case '\\': return "'\\\\'";
        default: break;
    }
    if (cp < 0x20 || cp == 0x7F) return escaped('x', 2);
    if (cp < 0x7F) return std::string{'\'', static_cast<char>(cp), '\''};
    return cp < 0x10000 ? escaped('u', 4) : escaped('U', 8);
}

// OPA's augmentYamlError: a hint for each line where a key's ':' is followed by
// something other than a space or a tab.
std::string with_separator_hints(std::string error, const std::vector<const Comment*>& lines) {
    for (const Comment* c : lines) {
        std::vector<std::string_view> parts;
        std::string_view t = c->text;
        for (std::size_t start = 0;;) {
            std::size_t colon = t.find(':', start);
            parts.push_back(t.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
            if (colon == std::string_view::npos) break;
            start = colon + 1;
        }
        if (parts.size() < 2) continue;
        std::vector<std::string> invalid;
        for (std::size_t i = 1; i < parts.size(); ++i) {
            std::string_view part = parts[i];
            if (part.empty() && i == parts.size() - 1) {
                invalid.clear();
                break;
            }
            if (!part.empty() && (part.front() == ' ' || part.front() == '\t')) {
                invalid.clear();
                break;
            }
            invalid.push_back(quote_first_rune(part));
        }
        if (invalid.empty()) continue;
        error += "\n  Hint: on line " + std::to_string(c->loc.line) + ", symbol(s) [";
        for (std::size_t i = 0; i < invalid.size(); ++i) error += (i ? " " : "") + invalid[i];
        error += "] immediately following a key/value separator ':' is not a legal yaml space character";
    }
    return error;
}

// Every term of `t` takes `loc`: parsed from a string of their own, they point into the block instead.
void relocate(Term& t, const Location& loc, std::size_t depth = 0) {
    t.loc = loc;
    if (depth > 1000) return;  // the parser's own limit: never reached
    for (auto& e : t.elems) relocate(*e, loc, depth + 1);
    for (auto& [k, v] : t.items) {
        relocate(*k, loc, depth + 1);
        relocate(*v, loc, depth + 1);
    }
}

// OPA's ParseRef of a `schemas:` key: a ref (`input` and `data` alone are refs of one part).
TermPtr parse_document_ref(const std::string& text, const Location& loc) {
    auto r = parse_term(text);
    if (!r.ok() || !r.term) return nullptr;
    TermPtr t = r.term;
    if (is_root_document(*t)) t = make_ref({t}, t->loc);
    if (t->kind != TermKind::Ref) return nullptr;
    relocate(*t, loc);
    return t;
}

// OPA's parseSchemaRef: `schema` itself or a ref below it.
TermPtr parse_schema_ref(const std::string& text, const Location& loc) {
    auto r = parse_term(text);
    if (!r.ok() || !r.term) return nullptr;
    TermPtr t = r.term;
    if (t->kind == TermKind::Var && t->text == "schema") t = make_ref({t}, t->loc);
    if (t->kind != TermKind::Ref || t->elems.empty()) return nullptr;
    const Term& head = *t->elems[0];
    if (head.kind != TermKind::Var || head.text != "schema") return nullptr;
    relocate(*t, loc);
    return t;
}

// The `schemas:` list, with OPA's messages for what it cannot use; "" when all is well.
std::string read_schemas(const yaml::Node* list, Annotation& a) {
    if (!list || list->is_null()) return "";
    if (!list->is_sequence()) return unmarshal_error(*list, "[]map[string]interface {}");
    for (const auto& item : list->items) {
        if (!item->is_null() && !item->is_mapping()) return unmarshal_error(*item, "map[string]interface {}");
        // OPA takes one entry of each item (Go's map order decides which of several); gavel the first.
        std::string key;
        const yaml::Node* value = nullptr;
        if (item->is_mapping() && !item->members.empty()) {
            const auto& [k, v] = item->members.front();
            if (!k->is_scalar()) return unmarshal_error(*k, "string");
            key = k->text;
            value = v.get();
        }
        SchemaAnnotation s;
        s.path = parse_document_ref(key, a.loc);
        if (!s.path) return "invalid document reference";
        if (value && value->is_scalar() && yaml_scalar(*value).kind == JsonTree::Kind::String) {
            s.schema = parse_schema_ref(value->text, a.loc);
            if (!s.schema) return "invalid schema reference";
        } else if (value && value->is_mapping()) {
            std::string error;
            auto definition = yaml_to_json_tree(*value, error);
            if (!definition) return "invalid schema definition: " + error;
            s.definition = std::make_shared<const JsonTree>(std::move(*definition));
        } else {
            return "invalid schema declaration for path " + go_quote(key);
        }
        a.schemas.push_back(std::move(s));
    }
    return "";
}

// The block's YAML read as OPA's rawAnnotation is (go-yaml v3); an error's text, or "".
std::string read_block(const yaml::Node* root, Annotation& a, bool& entrypoint) {
    if (!root || root->is_null()) return "";
    if (!root->is_mapping()) return unmarshal_error(*root, "ast.rawAnnotation");
    for (const char* field : {"scope", "title", "description"})
        if (const yaml::Node* v = root->get(field); v && !v->is_scalar()) return unmarshal_error(*v, "string");
    if (const yaml::Node* scope = root->get("scope"); scope && !scope->is_null()) a.scope = scope->text;
    if (const yaml::Node* e = root->get("entrypoint"); e && e->is_scalar()) {
        JsonTree t = yaml_scalar(*e);
        entrypoint = t.kind == JsonTree::Kind::Boolean && t.boolean;
    }
    return read_schemas(root->get("schemas"), a);
}

}  // namespace

void attach_annotations(Module& module, Diagnostics& diagnostics) {
    const auto& comments = module.comments;
    for (std::size_t i = 0; i < comments.size(); ++i) {
        // As OPA's parseAnnotations: a comment whose text begins with METADATA opens a block
        // (anywhere on a line); comments that begin the lines right below it continue it.
        if (!trim(comments[i].text).starts_with("METADATA")) continue;
        Annotation a;
        a.loc = comments[i].loc;
        uint32_t last_line = comments[i].loc.line;
        std::size_t j = i + 1;
        std::vector<const Comment*> lines;  // the block's lines after METADATA
        for (; j < comments.size() && comments[j].loc.line == last_line + 1 && comments[j].loc.col == 1; ++j) {
            lines.push_back(&comments[j]);
            std::string_view line = comments[j].text;
            if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
            a.yaml.append(line);
            a.yaml.push_back('\n');
            last_line = comments[j].loc.line;
        }
        i = j - 1;
        if (support::trim_space(a.yaml).empty()) {  // OPA's bytes.TrimSpace
            diagnostics.add(a.loc, codes::parse_error, "expected METADATA block, found whitespace");
            continue;
        }
        bool entrypoint = false;
        yaml::Documents doc = yaml::read_documents(a.yaml, yaml::ErrorDialect::GoYamlV3, {}, 1);
        std::string error =
            doc.ok ? read_block(doc.documents.empty() ? nullptr : doc.documents.front().get(), a, entrypoint)
                   : with_separator_hints(doc.error, lines);
        if (!error.empty()) {
            // go-yaml's errors are placed by their line; gavel's checks of what it read at the block.
            bool yaml_error = !doc.ok || error.rfind("yaml:", 0) == 0;
            diagnostics.add(yaml_error ? error_location(error, lines, a.loc) : a.loc, codes::parse_error, error);
            continue;
        }
        // The block belongs to the first statement after it.
        if (module.package.loc.line > last_line &&
            (module.rules.empty() || module.rules.front().loc.line > module.package.loc.line)) {
            a.on_package = true;
        } else {
            for (std::size_t r = 0; r < module.rules.size(); ++r) {
                if (module.rules[r].loc.line > last_line) {
                    a.rule_index = r;
                    break;
                }
            }
        }
        // As OPA: a rule's block is of scope rule, or document when it marks an entrypoint.
        if (a.scope.empty()) a.scope = a.on_package ? "package" : entrypoint ? "document" : "rule";
        module.annotations.push_back(std::move(a));
    }
}

}  // namespace gavel::lang
