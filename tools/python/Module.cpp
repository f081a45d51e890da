// The _collplan_tools extension module: plan-compile, plan-bench and plan-tune as Python
// functions. It sits beside the tools because it links them; `import collplan` loads it after
// the runtime's _collplan, whose types (Plan, Bundle) and error translators it shares.
#include "PyTools.h"

PYBIND11_MODULE(_collplan_tools, m) {
  m.doc() = "collplan's tools (compile, bench, tune) as functions returning data";
  collplan::python::bindTools(m);
}
