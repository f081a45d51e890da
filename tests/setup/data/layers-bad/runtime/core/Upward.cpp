// A runtime file that includes the tuner: check_layers.py must refuse it.
#include "runtime/core/Collective.h"
#include "tuner/Tuner.h"
