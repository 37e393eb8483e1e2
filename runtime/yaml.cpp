#include "runtime/yaml.hpp"

#include "runtime/utf8.hpp"
#include "runtime/yaml_scalar.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/exceptions.h>

#include <charconv>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace gavel::runtime {

namespace {

const std::string kTagStr = "tag:yaml.org,2002:str";
const std::string kTagInt = "tag:yaml.org,2002:int";
const std::string kTagFloat = "tag:yaml.org,2002:float";
const std::string kTagBool = "tag:yaml.org,2002:bool";
const std::string kTagNull = "tag:yaml.org,2002:null";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<bool> bool_word(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

std::optional<Number> int_scalar(std::string_view s) {
    bool neg = false;
    std::string_view body = s;
    if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
        neg = body[0] == '-';
        body.remove_prefix(1);
    }
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'o' || body[1] == 'x') && s.size() == body.size()) {
        int base = body[1] == 'o' ? 8 : 16;
        std::uint64_t v = 0;
        auto r = std::from_chars(body.data() + 2, body.data() + body.size(), v, base);
        if (r.ec != std::errc() || r.ptr != body.data() + body.size()) return std::nullopt;
        return Number::from_uint(v);
    }
    if (body.empty()) return std::nullopt;
    for (char c : body)
        if (!is_digit(c)) return std::nullopt;
    while (body.size() > 1 && body[0] == '0') body.remove_prefix(1);
    std::string digits;
    if (neg) digits.push_back('-');
    digits.append(body);
    return Number::from_decimal_integer(digits);
}

std::optional<Number> float_scalar(std::string_view s) {
    std::string t;
    std::size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (s[i] == '-') t.push_back('-');
        ++i;
    }
    std::size_t int_start = i;
    while (i < n && is_digit(s[i])) ++i;
    std::string_view ip = s.substr(int_start, i - int_start);
    std::string_view fp;
    bool dot = false;
    if (i < n && s[i] == '.') {
        dot = true;
        std::size_t b = ++i;
        while (i < n && is_digit(s[i])) ++i;
        fp = s.substr(b, i - b);
    }
    if (ip.empty() && fp.empty()) return std::nullopt;
    if (!dot && ip.empty()) return std::nullopt;
    std::string_view ep;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t b = i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t d = i;
        while (i < n && is_digit(s[i])) ++i;
        if (i == d) return std::nullopt;
        ep = s.substr(b, i - b);
    }
    if (i != n) return std::nullopt;
    while (ip.size() > 1 && ip[0] == '0') ip.remove_prefix(1);
    t.append(ip.empty() ? std::string_view("0") : ip);
    if (!fp.empty()) {
        t.push_back('.');
        t.append(fp);
    }
    t.append(ep);
    NumberResult r = Number::parse(t);
    if (!r.ok) return std::nullopt;
    return r.value;
}

// Values built straight from the parser's events (one pass; no YAML::Node
// graph). Anchored values are kept by anchor id and shared by their aliases;
// an alias adds its value's node count, so alias bombs meet the node limit
// without being expanded.
class ValueBuilder final : public YAML::EventHandler {
public:
    ValueBuilder(const Limits& limits, YamlTyping typing) : limits_(limits), typing_(typing) {}

    // Thrown from a callback to stop the parser at the first error.
    struct Stop {};

    std::vector<Value> documents;
    ParseError error_;

    // Where the last document was one empty node, if it was.
    std::optional<YAML::Mark> empty_document_at() const {
        return doc_events_ == 1 && doc_null_at_ ? doc_null_at_ : std::nullopt;
    }

    std::string depth_message() const {
        return "YAML nesting too deep: more than " + std::to_string(limits_.max_depth) + " levels";
    }

    void set_error(const YAML::Mark& m, const std::string& what) {
        if (m.is_null() || m.pos < 0) {
            error_.message = what;
            return;
        }
        error_.offset = static_cast<std::size_t>(m.pos);
        error_.line = static_cast<std::size_t>(m.line) + 1;
        error_.column = static_cast<std::size_t>(m.column) + 1;
        error_.message = what + " at line " + std::to_string(error_.line) + ", column " + std::to_string(error_.column);
    }

    void OnDocumentStart(const YAML::Mark&) override {
        root_ = Value();
        bad_key_.reset();
        doc_events_ = 0;
        doc_null_at_.reset();
    }
    void OnDocumentEnd() override {
        if (bad_key_) fail(*bad_key_, "YAML mapping key must be a scalar");
        documents.push_back(std::move(root_));
    }

    void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override {
        if (++doc_events_ == 1) doc_null_at_ = m;
        count_nodes(m, 1);
        if (anchor) anchors_[anchor] = Anchored{Value(), 1, std::string("null"), true};
        if (expecting_key()) frames_.back().key = Value::string("null");
        else place(Value(), m);
    }

    void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
        ++doc_events_;
        auto it = anchors_.find(anchor);
        if (it == anchors_.end() || !it->second.complete) fail(m, "YAML alias refers to a node that contains it");
        const Anchored& a = it->second;
        count_nodes(m, a.nodes);
        if (expecting_key() && a.text) frames_.back().key = Value::string(*a.text);
        else place(a.value, m);
    }

    void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& text) override {
        ++doc_events_;
        count_nodes(m, 1);
        // A key is text: a plain one as sigs.k8s.io/yaml writes what it resolves to (yes: "true", 010: "8").
        const bool key = expecting_key();
        Value v = key && !anchor ? Value() : scalar(m, tag, text);
        if (anchor) anchors_[anchor] = Anchored{v, 1, text, true};
        bool typed_key = tag == "?" && typing_ == YamlTyping::SigsK8sYaml;  // go-yaml v3 keeps a key's text
        if (key) frames_.back().key = Value::string(typed_key ? yaml_key_text(text) : text);
        else place(std::move(v), m);
    }

    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(m, anchor, false);
    }
    void OnSequenceEnd() override {
        Frame f = close();
        finish(f, f.items.build());
    }
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
        open(m, anchor, true);
    }
    void OnMapEnd() override {
        Frame f = close();
        finish(f, f.members.build(DuplicateKeys::LastWins));
    }

private:
    struct Anchored {
        Value value;
        std::size_t nodes = 1;
        std::optional<std::string> text;  // a scalar's (or null's) text, for use as a key
        bool complete = false;
    };
    struct Frame {
        bool map = false;
        YAML::Mark mark;
        YAML::anchor_t anchor = 0;
        std::size_t nodes_before = 0;
        ArrayBuilder items;
        ObjectBuilder members;
        std::optional<Value> key;  // a map's key awaiting its value
    };

    [[noreturn]] void fail(const YAML::Mark& m, const std::string& what) {
        set_error(m, what);
        throw Stop{};
    }

    void count_nodes(const YAML::Mark& m, std::size_t n) {
        nodes_ += n;
        if (nodes_ > limits_.max_nodes)
            fail(m, "YAML document too large: more than " + std::to_string(limits_.max_nodes) +
                        " values (alias expansion?)");
    }

    bool expecting_key() const { return !frames_.empty() && frames_.back().map && !frames_.back().key; }

    // `v` starts at `m`.
    void place(Value v, const YAML::Mark& m) {
        if (frames_.empty()) {
            root_ = std::move(v);
            return;
        }
        Frame& f = frames_.back();
        if (f.map && !f.key) {
            // A collection as a key. Reported when the document ends: yaml-cpp
            // also reads an unclosed flow collection this way before it
            // throws its own, better error.
            if (!bad_key_) bad_key_ = m;
            f.key = Value();
        } else if (f.map) {
            f.members.insert(std::move(*f.key), std::move(v));
            f.key.reset();
        } else {
            f.items.push_back(std::move(v));
        }
    }

    void open(const YAML::Mark& m, YAML::anchor_t anchor, bool map) {
        ++doc_events_;
        count_nodes(m, 1);
        if (frames_.size() >= limits_.max_depth) fail(m, depth_message());
        // Known but not complete: an alias to it from inside is a cycle.
        if (anchor) anchors_[anchor] = Anchored{};
        Frame f;
        f.map = map;
        f.mark = m;
        f.anchor = anchor;
        f.nodes_before = nodes_ - 1;
        frames_.push_back(std::move(f));
    }
    Frame close() {
        Frame f = std::move(frames_.back());
        frames_.pop_back();
        return f;
    }
    void finish(const Frame& f, Value v) {
        if (f.anchor) anchors_[f.anchor] = Anchored{v, nodes_ - f.nodes_before, std::nullopt, true};
        place(std::move(v), f.mark);
    }

    Value scalar(const YAML::Mark& m, const std::string& tag, const std::string& s) {
        if (tag == "!" || tag == kTagStr) return Value::string(s);
        if (tag == kTagNull) return Value();
        if (tag == kTagBool) {
            auto b = bool_word(s);
            if (!b) fail(m, "invalid !!bool value '" + s + "'");
            return Value::boolean(*b);
        }
        if (tag == kTagInt || tag == kTagFloat) {
            auto n = int_scalar(s);
            if (!n) n = float_scalar(s);
            if (!n) fail(m, "invalid number '" + s + "'");
            return Value::number(std::move(*n));
        }
        // Plain scalar ("?") or an unknown tag: as OPA reads YAML (yaml_scalar.hpp).
        YamlScalar resolved = resolve_plain_yaml_scalar(s, typing_);
        if (resolved.error) fail(m, *resolved.error);
        return std::move(resolved.value);
    }

    const Limits& limits_;
    YamlTyping typing_;
    std::size_t nodes_ = 0;
    std::vector<Frame> frames_;
    std::unordered_map<YAML::anchor_t, Anchored> anchors_;
    Value root_;
    std::size_t doc_events_ = 0;
    std::optional<YAML::Mark> doc_null_at_;
    std::optional<YAML::Mark> bad_key_;  // the first collection used as a key
};

} // namespace

ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits) {
    return parse_yaml_all(text, limits, YamlTyping::SigsK8sYaml);
}

ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits, YamlTyping typing) {
    ParseAllResult res;
    if (text.size() > limits.max_input_bytes) {
        res.error.message = "YAML input too large: " + std::to_string(text.size()) + " bytes (limit " +
                            std::to_string(limits.max_input_bytes) + ")";
        return res;
    }
    if (std::size_t bad = utf8::find_invalid(text); bad != std::string_view::npos) {
        res.error = make_parse_error(text, bad, "invalid UTF-8 in YAML input");
        return res;
    }
    ValueBuilder builder(limits, typing);
    try {
        std::istringstream in{std::string(text)};
        YAML::Parser parser(in);
        // yaml-cpp 0.7 reports an endless run of empty documents at a token it
        // cannot consume (its LoadAll collects them until memory runs out;
        // jbeder/yaml-cpp#1319, fixed after the version Debian ships): a second
        // empty document at the same place is that token.
        std::optional<YAML::Mark> previous_empty;
        while (parser.HandleNextDocument(builder)) {
            std::optional<YAML::Mark> empty = builder.empty_document_at();
            if (empty && previous_empty && empty->pos == previous_empty->pos) {
                builder.set_error(*empty, "YAML parse error: unexpected content");
                res.error = std::move(builder.error_);
                return res;
            }
            previous_empty = empty;
        }
    } catch (const ValueBuilder::Stop&) {
        res.error = std::move(builder.error_);
        return res;
    } catch (const YAML::DeepRecursion& e) {
        builder.set_error(e.mark, builder.depth_message());
        res.error = std::move(builder.error_);
        return res;
    } catch (const YAML::Exception& e) {
        builder.set_error(e.mark, "YAML parse error: " + e.msg);
        res.error = std::move(builder.error_);
        return res;
    } catch (const std::exception& e) {
        res.error.message = std::string("YAML parse error: ") + e.what();
        return res;
    }
    res.documents = std::move(builder.documents);
    res.ok = true;
    return res;
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
    ParseAllResult all = parse_yaml_all(text, limits);
    ParseResult res;
    if (!all.ok) {
        res.error = std::move(all.error);
        return res;
    }
    res.ok = true;
    if (!all.documents.empty()) res.value = std::move(all.documents.front());
    return res;
}

} // namespace gavel::runtime
