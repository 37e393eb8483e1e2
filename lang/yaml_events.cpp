#include "lang/yaml_events.hpp"

#include <yaml.h>

#include <algorithm>

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
    std::string_view text;
    ErrorDialect dialect;
    std::string error;
    Mark escape_mark;  // set with escape_error
    bool escape_error = false;
    bool failed = false;

    void describe_error() {
        const bool scanner = parser.error == YAML_SCANNER_ERROR;
        describe(scanner, parser.problem_mark.line, parser.context_mark.line,
                 parser.problem ? parser.problem : "unknown problem parsing YAML content");
    }

    // go-yaml's parser.fail(): which mark names the line (see the header).
    void describe(bool scanner, std::size_t problem, std::size_t context, std::string_view what) {
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
        error += what;
    }

    // Marks count characters (after any byte order mark); each cursor walks the
    // text once as long as it is asked for positions in order.
    struct Cursor {
        std::size_t chars = 0, bytes = 0;
        bool started = false;
        std::size_t to_bytes(std::string_view text, std::size_t want) {
            if (!started || want < chars) {
                started = true;
                chars = 0;
                bytes = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
            }
            while (chars < want && bytes < text.size()) {
                ++bytes;
                while (bytes < text.size() && (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) ++bytes;
                ++chars;
            }
            return std::min(bytes, text.size());
        }
    };
    Cursor scalars, marks;
    bool utf8_input() const {
        return !(text.size() >= 2 &&
                 ((text[0] == '\xFE' && text[1] == '\xFF') || (text[0] == '\xFF' && text[1] == '\xFE')));
    }

    // go-yaml's scanner refuses "\/" in a double-quoted scalar (libyaml reads it as '/'):
    // its error, at the backslash, in the context of the scalar's start.
    bool refuses_escape(const yaml_event_t& e) {
        if (e.data.scalar.style != YAML_DOUBLE_QUOTED_SCALAR_STYLE || !utf8_input()) return false;
        Mark at = mark_of(e.start_mark);
        // Marks count characters, as libyaml's do.
        auto step = [&at](char c) {
            if ((static_cast<unsigned char>(c) & 0xC0) == 0x80) return;  // inside a character
            ++at.offset;
            if (c == '\n') {
                ++at.line;
                at.column = 0;
            } else {
                ++at.column;
            }
        };
        const std::size_t end = e.end_mark.index;
        for (std::size_t i = scalars.to_bytes(text, at.offset); i < text.size() && at.offset < end; ++i) {
            if (text[i] == '\\' && i + 1 < text.size()) {
                if (text[i + 1] == '/') {
                    escape_mark = at;
                    describe(true, at.line, e.start_mark.line, "found unknown escape character");
                    return true;
                }
                step(text[i++]);  // the backslash; the escaped character below
            }
            step(text[i]);
        }
        return false;
    }
};

EventStream::EventStream(std::string_view text, ErrorDialect dialect) : impl_(std::make_unique<Impl>()) {
    impl_->dialect = dialect;
    impl_->text = text;
    yaml_parser_initialize(&impl_->parser);
    // go-yaml reads empty input as one line break; the marks then agree.
    static const unsigned char kLineBreak[] = "\n";
    if (text.empty()) yaml_parser_set_input_string(&impl_->parser, kLineBreak, 1);
    else yaml_parser_set_input_string(&impl_->parser, reinterpret_cast<const unsigned char*>(text.data()), text.size());
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
    out.end = mark_of(e.end_mark);
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
            if (impl_->refuses_escape(e)) {
                yaml_event_delete(&e);
                impl_->failed = impl_->escape_error = true;
                return false;
            }
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

std::size_t EventStream::byte_offset(const Mark& mark) { return impl_->marks.to_bytes(impl_->text, mark.offset); }

std::size_t EventStream::error_byte_offset() {
    if (impl_->parser.error == YAML_READER_ERROR) return impl_->parser.problem_offset;
    return byte_offset(error_mark());
}

Mark EventStream::error_mark() const {
    const yaml_parser_t& p = impl_->parser;
    if (impl_->escape_error) return impl_->escape_mark;
    if (p.problem_mark.line != 0 || p.problem_mark.index != 0) return mark_of(p.problem_mark);
    return mark_of(p.context_mark);
}

}  // namespace gavel::lang::yaml
