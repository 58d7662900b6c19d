// Nothing to call: the library replaces malloc and its kin when preloaded
// (LD_PRELOAD) and counts into the file TAILOR_ALLOCATION_COUNT_FILE names,
// which a test reads as one unsigned 64-bit integer in the machine's order.
