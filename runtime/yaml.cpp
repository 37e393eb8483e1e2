#include "runtime/yaml.hpp"

#include "runtime/json.hpp"
#include "runtime/yaml_scalar.hpp"

#include "lang/go_quote.hpp"
#include "lang/yaml_events.hpp"
#include "support/base64.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

namespace gavel::runtime {

namespace {

const std::string kTagStr = "tag:yaml.org,2002:str";
const std::string kTagInt = "tag:yaml.org,2002:int";
const std::string kTagFloat = "tag:yaml.org,2002:float";
const std::string kTagBool = "tag:yaml.org,2002:bool";
const std::string kTagNull = "tag:yaml.org,2002:null";
const std::string kTagMerge = "tag:yaml.org,2002:merge";
const std::string kTagTimestamp = "tag:yaml.org,2002:timestamp";
const std::string kTagBinary = "tag:yaml.org,2002:binary";

namespace yaml = lang::yaml;

bool is_null_word(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

// The tag go-yaml v2 resolves a plain scalar to, for its "cannot decode" message.
std::string plain_tag(std::string_view s) {
    return std::string(lang::yaml::resolved_tag(lang::yaml::resolve_plain_scalar(s, YamlTyping::SigsK8sYaml)));
}

// A decoded value as Go's fmt %#v writes it (go-yaml's "invalid map key: %#v").
void append_go_syntax(std::string& out, const Value& v) {
    if (v.is_null()) out += "interface {}(nil)";
    else if (v.is_string()) lang::append_go_quoted(out, v.as_string());
    else if (v.is_array()) {
        out += "[]interface {}{";
        bool first = true;
        for (const Value& e : v.array_elements()) {
            if (!first) out += ", ";
            first = false;
            append_go_syntax(out, e);
        }
        out += '}';
    } else if (v.is_object()) {
        // fmt sorts a map's keys; these keys are all strings here.
        std::vector<std::pair<std::string_view, const Value*>> members;
        for (const auto& e : v.object_entries()) members.emplace_back(e.key.as_string(), &e.value);
        std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        out += "map[interface {}]interface {}{";
        bool first = true;
        for (const auto& [k, value] : members) {
            if (!first) out += ", ";
            first = false;
            lang::append_go_quoted(out, k);
            out += ':';
            append_go_syntax(out, *value);
        }
        out += '}';
    } else {
        out += to_json(v);
    }
}

// Values built straight from libyaml's events (one pass; no node graph).
// Anchored values are kept by name and shared by their aliases; an alias adds
// its value's node count, so alias bombs meet the node limit without being
// expanded.
//
// Errors come in go-yaml v2's order (OPA reads YAML with it, through
// sigs.k8s.io/yaml): a document is parsed whole first, so a syntax error
// anywhere in it wins; then the first error decoding it (an anchor inside its
// own value, a collection as a key, a tagged scalar that is not of its tag);
// then sigs.k8s.io/yaml's (a null key); then what JSON cannot hold (.inf,
// .nan). Gavel's own limits (depth, size) stop at once.
class ValueBuilder {
public:
    ValueBuilder(std::string_view text, const Limits& limits, YamlTyping typing)
        : text_(text), limits_(limits), typing_(typing),
          events_(text,
                  typing == YamlTyping::SigsK8sYaml ? yaml::ErrorDialect::GoYamlV2 : yaml::ErrorDialect::GoYamlV3) {}

    std::vector<Value> documents;
    ParseError error;

    // Reads up to `max_documents` documents; false on an error (then `error`).
    bool run(std::size_t max_documents) {
        yaml::Event e;
        while (documents.size() < max_documents) {
            if (!events_.next(e)) {
                set_error(events_.error_byte_offset(), events_.error());
                return false;
            }
            if (!handle(e)) return false;
            if (e.type == yaml::EventType::StreamEnd) break;
        }
        return true;
    }

private:
    struct Anchored {
        Value value;
        std::size_t nodes = 1;
        std::optional<std::string> text;  // a scalar's text, for use as a key
        bool complete = false;
        std::size_t decoded = 1;  // the nodes go-yaml decodes for it (alias nodes and what they stand for)
    };
    struct Frame {
        bool map = false;
        std::size_t offset = 0;
        std::string anchor;
        std::size_t nodes_before = 0;
        std::size_t decoded_before = 0;
        ArrayBuilder items;
        ObjectBuilder members;
        std::optional<Value> key;  // a map's key awaiting its value
        bool merge = false;        // that key is `<<`: the value's members merge into this map
        bool null_key = false;     // that key is null, which sigs.k8s.io/yaml cannot turn into JSON
    };

    void set_error(std::size_t offset, std::string message) {
        error.offset = std::min(offset, text_.size());
        locate(text_, error.offset, error.line, error.column);
        error.message = std::move(message);
    }
    bool fail(std::size_t offset, std::string message) {
        set_error(offset, std::move(message));
        return false;
    }
    // The first decode (or JSON) error of the document, reported at its end.
    void defer(std::optional<std::pair<std::size_t, std::string>>& slot, std::size_t offset, std::string message) {
        if (!slot) slot.emplace(offset, std::move(message));
    }

    // go-yaml's guard against alias bombs, in its numbers: after `nodes` more
    // decoded nodes (`aliased` of them inside an alias), too many aliased ones
    // for the document's size stop the decoding.
    void count_decoded(std::size_t offset, std::size_t nodes, std::size_t aliased) {
        decoded_ += nodes;
        aliased_ += aliased;
        constexpr double low = 400000, high = 4000000;
        const auto n = static_cast<double>(decoded_);
        const double allowed = n <= low ? 0.99 : n >= high ? 0.10 : 0.99 - 0.89 * ((n - low) / (high - low));
        if (aliased_ > 100 && decoded_ > 1000 && static_cast<double>(aliased_) / n > allowed)
            defer(decode_error_, offset, "yaml: document contains excessive aliasing");
    }

    bool count_nodes(std::size_t offset, std::size_t n) {
        // Once decoding has failed nothing more is built: only the parse goes on (its errors win).
        if (decode_error_) return true;
        nodes_ += n;
        if (nodes_ > limits_.max_nodes)
            return fail(offset, "YAML document too large: more than " + std::to_string(limits_.max_nodes) +
                                    " values (alias expansion?)");
        return true;
    }

    bool expecting_key() const { return !frames_.empty() && frames_.back().map && !frames_.back().key; }

    bool handle(const yaml::Event& e) {
        const std::size_t at = events_.byte_offset(e.start);
        switch (e.type) {
            case yaml::EventType::StreamStart:
            case yaml::EventType::StreamEnd: return true;
            case yaml::EventType::DocumentStart:
                root_ = Value();
                decoded_ = 1;  // the document node
                aliased_ = 0;
                decode_error_.reset();
                conversion_error_.reset();
                json_error_.reset();
                return true;
            case yaml::EventType::DocumentEnd:
                if (decode_error_) return fail(decode_error_->first, std::move(decode_error_->second));
                if (conversion_error_) return fail(conversion_error_->first, std::move(conversion_error_->second));
                if (json_error_) return fail(json_error_->first, std::move(json_error_->second));
                documents.push_back(std::move(root_));
                return true;
            case yaml::EventType::Alias: {
                auto it = anchors_.find(e.anchor);
                if (it == anchors_.end()) return fail(at, "yaml: unknown anchor '" + e.anchor + "' referenced");
                const Anchored& a = it->second;
                count_decoded(at, 1, 0);
                if (!a.complete) defer(decode_error_, at, "yaml: anchor '" + e.anchor + "' value contains itself");
                else count_decoded(at, a.decoded, a.decoded);
                if (!count_nodes(at, a.nodes)) return false;
                if (expecting_key() && a.text) frames_.back().key = Value::string(*a.text);
                else place(a.value, at);
                return true;
            }
            case yaml::EventType::Scalar: {
                count_decoded(at, 1, 0);
                if (!count_nodes(at, 1)) return false;
                const bool plain = e.tag.empty() && e.style == yaml::ScalarStyle::Plain;
                // A key is text: a plain one as sigs.k8s.io/yaml writes what it resolves to (yes: "true", 010: "8").
                const bool key = expecting_key();
                Value v = key && e.anchor.empty() ? Value() : scalar(at, e, plain);
                if (!e.anchor.empty()) anchors_[e.anchor] = Anchored{v, 1, e.value, true};
                bool typed_key = plain && typing_ == YamlTyping::SigsK8sYaml;  // go-yaml v3 keeps a key's text
                if (key) {
                    frames_.back().key = Value::string(plain && is_null_word(e.value) ? std::string("null")
                                                       : typed_key ? lang::yaml::plain_key_text(e.value)
                                                                   : e.value);
                    frames_.back().merge = e.value == "<<" && (plain || e.tag == kTagMerge);
                    frames_.back().null_key =
                        typing_ == YamlTyping::SigsK8sYaml && ((plain && is_null_word(e.value)) || e.tag == kTagNull);
                } else place(std::move(v), at);
                return true;
            }
            case yaml::EventType::SequenceStart: return open(at, e.anchor, false);
            case yaml::EventType::MappingStart: return open(at, e.anchor, true);
            case yaml::EventType::SequenceEnd: {
                Frame f = close();
                return finish(f, f.items.build());
            }
            case yaml::EventType::MappingEnd: {
                Frame f = close();
                return finish(f, f.members.build(DuplicateKeys::LastWins));
            }
        }
        return true;
    }

    // `v` starts at `offset`.
    void place(Value v, std::size_t offset) {
        if (frames_.empty()) {
            root_ = std::move(v);
            return;
        }
        Frame& f = frames_.back();
        if (f.map && !f.key) {
            // A collection as a key: go-yaml refuses it once it has decoded it.
            std::string text = "yaml: invalid map key: ";
            append_go_syntax(text, v);
            defer(decode_error_, offset, std::move(text));
            f.key = Value();
        } else if (f.map && f.null_key) {
            std::string text = "unsupported map key of type: %!s(<nil>), key: <nil>, value: ";
            if (v.is_null()) text += "<nil>";
            else append_go_syntax(text, v);
            defer(conversion_error_, offset, std::move(text));
            f.key.reset();
            f.null_key = false;
        } else if (f.map && f.merge) {
            merge_into(f, v, offset);
            f.key.reset();
            f.merge = false;
        } else if (f.map) {
            f.members.insert(std::move(*f.key), std::move(v));
            f.key.reset();
        } else {
            f.items.push_back(std::move(v));
        }
    }

    // go-yaml's merge key: a mapping's members (or those of each mapping in a
    // sequence, the first winning) set into this map where `<<` stands, over
    // the keys before it and under the keys after it.
    void merge_into(Frame& f, const Value& v, std::size_t offset) {
        auto set_members = [&f](const Value& m) {
            for (const auto& e : m.object_entries()) f.members.insert(e.key, e.value);
        };
        if (v.is_object()) return set_members(v);
        if (v.is_array()) {
            auto items = v.array_elements();
            if (std::all_of(items.begin(), items.end(), [](const Value& m) { return m.is_object(); })) {
                for (auto it = items.rbegin(); it != items.rend(); ++it) set_members(*it);
                return;
            }
        }
        defer(decode_error_, offset, "yaml: map merge requires map or sequence of maps as the value");
    }

    bool open(std::size_t offset, const std::string& anchor, bool map) {
        count_decoded(offset, 1, 0);
        if (!count_nodes(offset, 1)) return false;
        if (frames_.size() >= limits_.max_depth)
            return fail(offset, "YAML nesting too deep: more than " + std::to_string(limits_.max_depth) + " levels");
        // Known but not complete: an alias to it from inside is a cycle.
        if (!anchor.empty()) anchors_[anchor] = Anchored{};
        Frame f;
        f.map = map;
        f.offset = offset;
        f.anchor = anchor;
        f.nodes_before = nodes_ - 1;
        f.decoded_before = decoded_ - 1;
        frames_.push_back(std::move(f));
        return true;
    }
    Frame close() {
        Frame f = std::move(frames_.back());
        frames_.pop_back();
        return f;
    }
    bool finish(const Frame& f, Value v) {
        if (!f.anchor.empty())
            anchors_[f.anchor] = Anchored{v, nodes_ - f.nodes_before, std::nullopt, true, decoded_ - f.decoded_before};
        place(std::move(v), f.offset);
        return true;
    }

    Value scalar(std::size_t at, const yaml::Event& e, bool plain) {
        const std::string& tag = e.tag;
        const std::string& s = e.value;
        if (!plain && tag.empty()) return Value::string(s);  // quoted or block
        const bool core =
            tag == kTagNull || tag == kTagBool || tag == kTagInt || tag == kTagFloat || tag == kTagTimestamp;
        if (tag == kTagBinary) {
            // go-yaml decodes it with Go's standard base64 (line breaks skipped) into a string.
            auto decoded = support::base64_decode(s);
            if (!decoded.ok) defer(decode_error_, at, "yaml: !!binary value contains invalid base64 data");
            return Value::string(decoded.bytes);
        }
        if (!tag.empty() && !core) return Value::string(s);  // !!str, `!`, or a tag go-yaml does not resolve (!foo)
        // Plain, or tagged !!null, !!bool, !!int, !!float: go-yaml resolves the text as if plain
        // (yaml_scalar.hpp); the tag must then agree (an !!int is a !!float too).
        YamlScalar resolved = resolve_plain_yaml_scalar(s, typing_);
        if (tag == kTagNull || tag == kTagBool || tag == kTagInt || tag == kTagFloat) {
            const std::string rtag = plain_tag(s);
            const std::string want = lang::yaml::short_tag(tag);
            if (rtag != want && !(want == "!!float" && rtag == "!!int")) {
                defer(decode_error_, at, "yaml: cannot decode " + rtag + " `" + s + "` as a " + want);
                return Value();
            }
        }
        if (resolved.error) defer(json_error_, at, *resolved.error);
        return std::move(resolved.value);
    }

    std::string_view text_;
    const Limits& limits_;
    YamlTyping typing_;
    yaml::EventStream events_;
    std::size_t nodes_ = 0;
    std::size_t decoded_ = 0, aliased_ = 0;  // go-yaml's decodeCount and aliasCount
    std::vector<Frame> frames_;
    std::unordered_map<std::string, Anchored> anchors_;
    Value root_;
    // go-yaml's decoding, then sigs.k8s.io/yaml's conversion, then encoding/json's.
    std::optional<std::pair<std::size_t, std::string>> decode_error_, conversion_error_, json_error_;
};

ParseAllResult read_documents(std::string_view text, const Limits& limits, YamlTyping typing,
                              std::size_t max_documents) {
    ParseAllResult res;
    if (text.size() > limits.max_input_bytes) {
        res.error.message = "YAML input too large: " + std::to_string(text.size()) + " bytes (limit " +
                            std::to_string(limits.max_input_bytes) + ")";
        return res;
    }
    ValueBuilder builder(text, limits, typing);
    if (!builder.run(max_documents)) {
        res.error = std::move(builder.error);
        return res;
    }
    res.documents = std::move(builder.documents);
    res.ok = true;
    return res;
}

}  // namespace

ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits) {
    return parse_yaml_all(text, limits, YamlTyping::SigsK8sYaml);
}

ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits, YamlTyping typing) {
    return read_documents(text, limits, typing, SIZE_MAX);
}

ParseResult parse_yaml(std::string_view text, const Limits& limits) {
    ParseAllResult all = parse_yaml_all(text, limits);
    ParseResult res;
    if (!all.ok) {
        res.error = std::move(all.error);
        return res;
    }
    if (all.documents.size() > 1) {
        res.error.message = "expected one YAML document, found " + std::to_string(all.documents.size());
        return res;
    }
    res.ok = true;
    if (!all.documents.empty()) res.value = std::move(all.documents.front());
    return res;
}

ParseResult load_yaml_data(std::string_view text, const Limits& limits) {
    // go-yaml's Unmarshal reads up to the end of the first document and no further.
    ParseAllResult first = read_documents(text, limits, YamlTyping::SigsK8sYaml, 1);
    ParseResult res;
    if (!first.ok) {
        res.error = std::move(first.error);
        return res;
    }
    res.ok = true;
    if (!first.documents.empty()) res.value = std::move(first.documents.front());
    return res;
}

ParseResult parse_json_or_yaml(std::string_view text, const Limits& limits) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    if (ParseResult json = parse_json(text, limits)) return json;
    return load_yaml_data(text, limits);
}

}  // namespace gavel::runtime
