#include "../compat.h"
