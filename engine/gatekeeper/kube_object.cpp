#include "engine/gatekeeper/kube_object.hpp"

#include "runtime/file_read.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"

namespace gavel::gatekeeper {

using runtime::Value;

lang::Diagnostic file_error(const std::string& file, uint32_t line, std::string message) {
    lang::Diagnostic d;
    d.file = file;
    d.line = line;
    d.message = (line ? file + ":" + std::to_string(line) : file) + ": " + message;
    return d;
}

namespace {

// One document after gator's clean(): its text and, per line, the line of the file it came from.
struct CleanDocument {
    std::string text;
    std::vector<uint32_t> file_lines;
};

std::vector<CleanDocument> split_documents(std::string_view text) {
    std::vector<CleanDocument> docs(1);
    uint32_t line_no = 1;
    std::size_t pos = 0;
    bool first_line_of_chunk = false;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        std::string_view rest = line;
        // "\n---" starts a new chunk: the rest of that line belongs to it.
        if (line_no > 1 && line.substr(0, 3) == "---") {
            docs.emplace_back();
            rest = line.substr(3);
            first_line_of_chunk = true;
        }
        std::size_t first = rest.find_first_not_of(" \t\r\v\f");
        bool blank_or_comment = first == std::string_view::npos || rest[first] == '#';
        if (!blank_or_comment) {
            docs.back().text.append(rest);
            docs.back().text.push_back('\n');
            docs.back().file_lines.push_back(line_no);
        }
        (void)first_line_of_chunk;
        if (end == std::string_view::npos) break;
        pos = end + 1;
        ++line_no;
    }
    return docs;
}

runtime::Limits object_limits() {
    runtime::Limits limits;
    limits.max_input_bytes = kMaxObjectFileBytes;
    limits.max_nodes = 2'000'000;  // a few anchors cannot stand for more values than this
    limits.max_depth = 256;
    return limits;
}

bool read_file(const std::string& path, std::string& text, std::optional<lang::Diagnostic>& error) {
    runtime::FileRead read = runtime::read_whole_file(path, kMaxObjectFileBytes);
    if (!read.ok) {
        lang::Diagnostic d;  // the message names the file: "open F: no such file or directory"
        d.file = path;
        d.message = std::move(read.message);
        error = std::move(d);
        return false;
    }
    text = std::move(read.text);
    return true;
}

// A parsed document must be an object naming its kind (Unstructured's rule).
std::optional<std::string> object_problem(const Value& v) {
    if (!v.is_object()) return "the document is not an object (it is " + std::string(v.type_name()) + ")";
    const Value* kind = v.find("kind");
    if (!kind || !kind->is_string() || kind->as_string().empty()) return std::string("Object 'Kind' is missing");
    return std::nullopt;
}

}  // namespace

ObjectsRead read_objects(std::string_view text, const std::string& file) {
    ObjectsRead out;
    for (auto& doc : split_documents(text)) {
        if (doc.text.empty()) continue;
        auto parsed = runtime::parse_yaml_all(doc.text, object_limits(), runtime::YamlTyping::GoYamlV3);
        auto file_line = [&](std::size_t line) -> uint32_t {
            if (line == 0 || doc.file_lines.empty()) return doc.file_lines.empty() ? 0 : doc.file_lines.front();
            return doc.file_lines[std::min(line, doc.file_lines.size()) - 1];
        };
        if (!parsed.ok) {
            lang::Diagnostic d = file_error(file, file_line(parsed.error.line), parsed.error.message);
            d.col = static_cast<uint32_t>(parsed.error.column);
            out.error = std::move(d);
            return out;
        }
        for (auto& v : parsed.documents) {
            if (v.is_null()) continue;
            if (auto problem = object_problem(v)) {
                out.error = file_error(file, file_line(1), *problem);
                return out;
            }
            out.objects.push_back({std::move(v), file, file_line(1)});
        }
    }
    return out;
}

ObjectsRead read_objects_file(const std::string& path) {
    ObjectsRead out;
    std::string text;
    if (!read_file(path, text, out.error)) return out;
    return read_objects(text, path);
}

ObjectsRead read_first_object_file(const std::string& path) {
    ObjectsRead out;
    std::string text;
    if (!read_file(path, text, out.error)) return out;
    auto parsed = runtime::parse_yaml_all(text, object_limits(), runtime::YamlTyping::GoYamlV3);
    if (!parsed.ok) {
        lang::Diagnostic d = file_error(path, static_cast<uint32_t>(parsed.error.line), parsed.error.message);
        d.col = static_cast<uint32_t>(parsed.error.column);
        out.error = std::move(d);
        return out;
    }
    if (parsed.documents.empty() || parsed.documents.front().is_null()) {
        out.error = file_error(path, 0, "the file holds no YAML object");
        return out;
    }
    if (auto problem = object_problem(parsed.documents.front())) {
        out.error = file_error(path, 1, *problem);
        return out;
    }
    out.objects.push_back({std::move(parsed.documents.front()), path, 1});
    return out;
}

const Value* value_at(const Value& object, std::initializer_list<std::string_view> path) {
    const Value* at = &object;
    for (auto key : path) {
        if (!at->is_object()) return nullptr;
        at = at->find(key);
        if (!at) return nullptr;
    }
    return at;
}

std::string_view string_at(const Value& object, std::initializer_list<std::string_view> path) {
    const Value* v = value_at(object, path);
    return v && v->is_string() ? v->as_string() : std::string_view{};
}

GroupVersionKind gvk_of(const Value& object) {
    GroupVersionKind gvk;
    std::string_view api = string_at(object, {"apiVersion"});
    auto slash = api.find('/');
    if (slash == std::string_view::npos) {
        gvk.version = std::string(api);
    } else {
        gvk.group = std::string(api.substr(0, slash));
        gvk.version = std::string(api.substr(slash + 1));
    }
    gvk.kind = std::string(string_at(object, {"kind"}));
    return gvk;
}

std::string_view object_name(const Value& object) { return string_at(object, {"metadata", "name"}); }
std::string_view object_namespace(const Value& object) { return string_at(object, {"metadata", "namespace"}); }

bool is_namespace_object(const Value& object) {
    if (string_at(object, {"kind"}) != "Namespace") return false;
    return string_at(object, {"apiVersion"}).find('/') == std::string_view::npos;
}

}  // namespace gavel::gatekeeper
