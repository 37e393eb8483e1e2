#pragma once
// The module as OPA's parser hands it to OPA's formatter: rule heads in OPA's
// shape (a `p[x]` partial set has key x and ref p; a constant has a generated
// `true` body), one rule per chained body, comments sorted and trimmed, the
// imports the target dialect adds or drops. The writer lays this out.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "lang/ast.hpp"
#include "lang/format/source_spans.hpp"

namespace gavel::lang::format {

struct CommentView {
    int row = 0;
    int col = 0;
    std::string text;      // after `#`, trailing blanks trimmed
    std::string_view raw;  // the source text, `#` included
    std::string str() const { return "#" + text; }
};

struct ImportView {
    int row = 0;
    int col = 0;
    std::vector<TermPtr> path;  // head var, then string parts
    std::string alias;
    bool generated = false;  // added by the formatter (OPA's default location)
};

struct HeadView {
    Span loc;
    std::vector<TermPtr> ref;  // OPA's Head.Ref()
    std::vector<TermPtr> args;
    TermPtr key;
    TermPtr value;               // null when the head has none
    bool value_at_head = false;  // OPA gave the value the head's own location (`p[x] if`, `a.b.c`)
    bool assign = false;
    bool contains = false;
};

struct RuleView {
    Span loc;
    bool is_default = false;
    HeadView head;
    const Body* body = nullptr;  // null: OPA's generated body `true`
    const Rule* else_rule = nullptr;
    const Rule* top = nullptr;  // the rule of the else chain this clause belongs to
    bool literal_body = false;  // an else clause's one literal: OPA moves all of it to the clause's location
};

struct ModuleView {
    const Module* module = nullptr;
    Span package_loc;
    std::vector<TermPtr> package_path;  // without `data`, the first part as a var
    std::vector<ImportView> imports;
    std::vector<RuleView> rules;
    std::vector<CommentView> comments;
};

enum class TargetVersion { V0, V1, V0CompatV1 };

struct ViewOptions {
    TargetVersion target = TargetVersion::V1;
    bool drop_v0_imports = false;
};

// What the writer needs to know of the module as a whole (OPA's fmtOpts).
struct WriterOptions {
    bool contains = false;
    bool ifs = false;
    bool ref_heads = false;
    bool rego_v1 = false;
    bool allow_keywords_in_refs = true;
    std::vector<std::string> future_keywords;
};

ModuleView build_view(const Module& module, const SourceSpans& spans, const ViewOptions& options,
                      WriterOptions& writer_options);

// OPA's head shape for a rule or else clause (shared by the view and the writer).
HeadView head_view(const Rule& rule, const SourceSpans& spans);

}  // namespace gavel::lang::format
