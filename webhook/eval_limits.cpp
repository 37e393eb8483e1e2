#include "webhook/eval_limits.hpp"

namespace gavel::webhook {

EvalOptions EvalLimits::eval_options(const runtime::Value* input) const {
    EvalOptions eo;
    eo.input = input;
    eo.timeout = timeout;
    eo.cancel = cancel;
    eo.max_memory = max_memory;
    eo.print = print;
    eo.metrics = true;  // for ?metrics=true answers and decision logs
    return eo;
}

gatekeeper::EvalControl EvalLimits::gatekeeper_control() const {
    gatekeeper::EvalControl control;
    control.timeout = timeout;
    control.cancel = cancel;
    control.print = print;
    control.max_memory = max_memory;
    return control;
}

}  // namespace gavel::webhook
