#include "runtime/eval/tracing.hpp"

namespace gavel {

const char* to_string(TraceOp op) {
    switch (op) {
        case TraceOp::Enter: return "Enter";
        case TraceOp::Eval: return "Eval";
        case TraceOp::Redo: return "Redo";
        case TraceOp::Fail: return "Fail";
        case TraceOp::Exit: return "Exit";
        case TraceOp::Note: return "Note";
    }
    return "?";
}

}  // namespace gavel
