#include <asm/errno.h>
#include "../compat.h"
