#pragma once
// YAML as a stream of parse events (libyaml), with parse errors worded as
// OPA's YAML libraries word them. go-yaml (v2 and v3) is a Go port of
// libyaml, so the problem texts are libyaml's; what differs is which mark's
// line the message names:
//   * go-yaml v2 (OPA's data files, inputs, yaml.unmarshal, REST bodies, all
//     through sigs.k8s.io/yaml): the problem mark's line, else the context
//     mark's; a scanner error's problem line counts from 1, the others as
//     libyaml counts them (from 0). Line 0 is left out: "yaml: <problem>".
//   * go-yaml v3 (METADATA blocks): the context mark's line first, then the
//     problem mark's, each one more for a scanner error.
// One escape is go-yaml's and not libyaml's (0.2.5 reads YAML 1.2's "\/"):
// a double-quoted scalar holding it is go-yaml's "found unknown escape
// character" here too.
// Every reader of YAML in gavel starts here (runtime/yaml.hpp builds Values,
// yaml_node.hpp a node tree); libyaml keeps its own stacks on the heap, so no
// input recurses here: nesting limits are the builders'.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace gavel::lang::yaml {

// A position as libyaml counts it: all three from 0, in characters (not bytes).
struct Mark {
    std::size_t offset = 0;
    std::size_t line = 0;
    std::size_t column = 0;
};

enum class EventType : unsigned char {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias,
    Scalar,
    SequenceStart,
    SequenceEnd,
    MappingStart,
    MappingEnd,
};

enum class ScalarStyle : unsigned char { Plain, SingleQuoted, DoubleQuoted, Literal, Folded };

struct Event {
    EventType type = EventType::StreamEnd;
    Mark start;
    Mark end;
    std::string anchor;  // the anchor a node defines, or the one an alias names
    std::string tag;     // an explicit tag, handles resolved ("tag:yaml.org,2002:str"); empty when none
    std::string value;   // a scalar's text
    ScalarStyle style = ScalarStyle::Plain;
};

// Whose wording of a parse error's line to follow (see above).
enum class ErrorDialect : unsigned char { GoYamlV2, GoYamlV3 };

class EventStream {
public:
    // `text` must outlive the stream.
    explicit EventStream(std::string_view text, ErrorDialect dialect = ErrorDialect::GoYamlV2);
    ~EventStream();
    EventStream(const EventStream&) = delete;
    EventStream& operator=(const EventStream&) = delete;

    // The next event; false on a parse error, which error() then describes
    // ("yaml: line 2: found character that cannot start any token").
    bool next(Event& event);
    const std::string& error() const;
    // Where the problem is (libyaml's problem mark, else its context mark).
    Mark error_mark() const;
    // The same as a byte offset into the text (for bytes that are not UTF-8 or
    // not allowed, libyaml knows only that).
    std::size_t error_byte_offset();
    // A mark's offset (characters, after any byte order mark) in bytes of the
    // text; quickest when asked in order.
    std::size_t byte_offset(const Mark& mark);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gavel::lang::yaml
