#include "lang/format/format.hpp"

#include "lang/format/rego_v1_check.hpp"
#include "lang/format/source_spans.hpp"
#include "lang/format/writer.hpp"
#include "lang/parse.hpp"

namespace gavel::lang::format {

FormatResult format_module(std::string file, std::string text, const FormatOptions& options) {
    FormatResult result;
    ParseOptions parse_options;
    parse_options.v0_compatible = options.parse_v0;
    ModuleResult parsed = parse_module(file, std::move(text), parse_options);
    if (!parsed.ok()) {
        result.diagnostics = std::move(parsed.diagnostics);
        return result;
    }
    const Module& module = *parsed.module;
    if (options.target != TargetVersion::V0) {
        // A module read as v0 must also be valid v1 (OPA's CheckRegoV1, less what formatting adds).
        result.diagnostics = check_rego_v1(module);
        if (!result.diagnostics.empty()) return result;
    }

    SourceSpans spans(module.source->text());
    ViewOptions view_options;
    view_options.target = options.target;
    view_options.drop_v0_imports = options.drop_v0_imports;
    WriterOptions writer_options;
    ModuleView view = build_view(module, spans, view_options, writer_options);
    Writer writer(spans, std::move(writer_options));
    std::string out = writer.write_module(view);
    if (!writer.errors().empty()) {
        Location nowhere;
        for (const auto& message : writer.errors()) {
            Diagnostic d = Diagnostic::at(nowhere, "rego_format_error", message);
            d.file = file;
            result.diagnostics.add(std::move(d));
        }
        return result;
    }
    result.text = std::move(out);
    return result;
}

}  // namespace gavel::lang::format
