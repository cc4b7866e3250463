//go:build linux

#include "textflag.h"

// func getg() uintptr: the running goroutine's g, which the runtime keeps
// in thread-local storage on amd64.
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
