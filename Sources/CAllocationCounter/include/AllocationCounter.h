#include <stdint.h>

/// Heap allocations counted in this process so far.
uint64_t tailor_allocation_count(void);
