/* empty.c: the shared runtime's own source; its code comes whole from the static runtime. */
