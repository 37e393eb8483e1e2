#include "cli/output_errors.hpp"

#include "engine/loader.hpp"

namespace gavel::cli {

OutputError from_diagnostic(const lang::Diagnostic& d) {
    OutputError e;
    e.message = std::string(d.summary());  // the detail lines are in "details"
    e.code = d.code;
    e.details = d.details;
    e.has_location = d.line > 0;
    e.file = d.file;
    e.row = d.line;
    e.col = d.col;
    if (d.code == lang::codes::parse_error) e.detail_line = d.source_line;
    e.text = engine::describe(d);
    return e;
}

OutputError from_eval_error(const EvalError& err) {
    OutputError e;
    e.message = err.message;
    e.code = err.code;
    e.has_location = err.line > 0;
    e.file = err.file;
    e.row = err.line;
    e.col = err.col;
    e.text = err.to_string();
    return e;
}

OutputError plain_error(std::string message) {
    OutputError e;
    e.message = message;
    e.text = std::move(message);
    return e;
}

Json errors_json(const std::vector<OutputError>& errors) {
    Json arr = Json::array();
    for (const auto& e : errors) {
        Json o = Json::object();
        o.add("message", Json::str(e.message));
        if (!e.code.empty()) o.add("code", Json::str(e.code));
        if (e.has_location) {
            Json loc = Json::object();
            loc.add("file", Json::str(e.file)).add("row", Json::integer(e.row)).add("col", Json::integer(e.col));
            o.add("location", std::move(loc));
        }
        if (e.details) {
            o.add("details", Json::of(*e.details));
        } else if (!e.detail_line.empty()) {
            Json details = Json::object();
            details.add("line", Json::str(e.detail_line)).add("idx", Json::integer(e.col > 0 ? e.col - 1 : 0));
            o.add("details", std::move(details));
        }
        arr.push(std::move(o));
    }
    return arr;
}

std::string errors_text(const std::vector<OutputError>& errors) {
    std::string out = errors.size() == 1 ? "1 error occurred: " : std::to_string(errors.size()) + " errors occurred:\n";
    for (std::size_t i = 0; i < errors.size(); ++i) {
        if (i) out.push_back('\n');
        out += errors[i].text;
    }
    return out;
}

}  // namespace gavel::cli
