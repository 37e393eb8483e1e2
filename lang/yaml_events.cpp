#include "lang/yaml_events.hpp"

#include <yaml.h>

namespace gavel::lang::yaml {

namespace {

Mark mark_of(const yaml_mark_t& m) { return {m.index, m.line, m.column}; }

std::string text_of(const yaml_char_t* s) { return s ? std::string(reinterpret_cast<const char*>(s)) : std::string(); }

ScalarStyle style_of(yaml_scalar_style_t s) {
    switch (s) {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: return ScalarStyle::SingleQuoted;
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: return ScalarStyle::DoubleQuoted;
        case YAML_LITERAL_SCALAR_STYLE: return ScalarStyle::Literal;
        case YAML_FOLDED_SCALAR_STYLE: return ScalarStyle::Folded;
        default: return ScalarStyle::Plain;
    }
}

}  // namespace

struct EventStream::Impl {
    yaml_parser_t parser{};
    ErrorDialect dialect;
    std::string error;
    bool failed = false;

    // go-yaml's parser.fail(): which mark names the line (see the header).
    void describe_error() {
        const bool scanner = parser.error == YAML_SCANNER_ERROR;
        const std::size_t problem = parser.problem_mark.line, context = parser.context_mark.line;
        std::size_t line = 0;
        if (dialect == ErrorDialect::GoYamlV2) {
            if (problem != 0) line = problem + (scanner ? 1 : 0);
            else if (context != 0) line = context;
        } else {
            if (context != 0) line = context + (scanner ? 1 : 0);
            else if (problem != 0) line = problem + (scanner ? 1 : 0);
        }
        error = "yaml: ";
        if (line != 0) error += "line " + std::to_string(line) + ": ";
        error += parser.problem ? parser.problem : "unknown problem parsing YAML content";
    }
};

EventStream::EventStream(std::string_view text, ErrorDialect dialect) : impl_(std::make_unique<Impl>()) {
    impl_->dialect = dialect;
    yaml_parser_initialize(&impl_->parser);
    // go-yaml reads empty input as one line break; the marks then agree.
    static const unsigned char kLineBreak[] = "\n";
    if (text.empty()) yaml_parser_set_input_string(&impl_->parser, kLineBreak, 1);
    else
        yaml_parser_set_input_string(&impl_->parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
}

EventStream::~EventStream() { yaml_parser_delete(&impl_->parser); }

bool EventStream::next(Event& out) {
    if (impl_->failed) return false;
    yaml_event_t e;
    if (!yaml_parser_parse(&impl_->parser, &e)) {
        impl_->failed = true;
        impl_->describe_error();
        return false;
    }
    out.start = mark_of(e.start_mark);
    out.anchor.clear();
    out.tag.clear();
    out.value.clear();
    out.style = ScalarStyle::Plain;
    switch (e.type) {
        case YAML_STREAM_START_EVENT: out.type = EventType::StreamStart; break;
        case YAML_STREAM_END_EVENT: out.type = EventType::StreamEnd; break;
        case YAML_DOCUMENT_START_EVENT: out.type = EventType::DocumentStart; break;
        case YAML_DOCUMENT_END_EVENT: out.type = EventType::DocumentEnd; break;
        case YAML_ALIAS_EVENT:
            out.type = EventType::Alias;
            out.anchor = text_of(e.data.alias.anchor);
            break;
        case YAML_SCALAR_EVENT:
            out.type = EventType::Scalar;
            out.anchor = text_of(e.data.scalar.anchor);
            out.tag = text_of(e.data.scalar.tag);
            out.value.assign(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
            out.style = style_of(e.data.scalar.style);
            break;
        case YAML_SEQUENCE_START_EVENT:
            out.type = EventType::SequenceStart;
            out.anchor = text_of(e.data.sequence_start.anchor);
            out.tag = text_of(e.data.sequence_start.tag);
            break;
        case YAML_SEQUENCE_END_EVENT: out.type = EventType::SequenceEnd; break;
        case YAML_MAPPING_START_EVENT:
            out.type = EventType::MappingStart;
            out.anchor = text_of(e.data.mapping_start.anchor);
            out.tag = text_of(e.data.mapping_start.tag);
            break;
        case YAML_MAPPING_END_EVENT: out.type = EventType::MappingEnd; break;
        default: out.type = EventType::StreamEnd; break;  // YAML_NO_EVENT: libyaml has nothing more
    }
    yaml_event_delete(&e);
    return true;
}

const std::string& EventStream::error() const { return impl_->error; }

Mark EventStream::error_mark() const {
    const yaml_parser_t& p = impl_->parser;
    if (p.error == YAML_READER_ERROR) return {p.problem_offset, 0, 0};  // bad bytes: only their offset is known
    if (p.problem_mark.line != 0 || p.problem_mark.index != 0) return mark_of(p.problem_mark);
    return mark_of(p.context_mark);
}

}  // namespace gavel::lang::yaml
