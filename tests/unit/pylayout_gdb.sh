#!/bin/sh
# pylayout_gdb.sh LIBPYTHON MINOR [MAJOR]: the offsets of the fields lperf reads
# (src/python/pylayout.h), as the DWARF of a CPython MAJOR.MINOR build (MAJOR 3 unless given) says,
# one "name=value" per line (gdb computes them).

L=$1; m=$2; M=${3:-3}
if [ $M = 2 ]; then # no str type: names are byte strings; no _PyRuntime (interp_head)
	F="runtime_interp_head:0
tstate_interp:&((PyThreadState*)0)->interp
bytes_size:&((PyStringObject*)0)->ob_size
bytes_sval:&((PyStringObject*)0)->ob_sval"
else
	F="ascii_size:sizeof(PyASCIIObject)
compact_size:sizeof(PyCompactUnicodeObject)
unicode_state:&((PyASCIIObject*)0)->state
unicode_length:&((PyASCIIObject*)0)->length
bytes_size:&((PyBytesObject*)0)->ob_base.ob_size
bytes_sval:&((PyBytesObject*)0)->ob_sval"
	if [ $m -le 6 ]; then F="$F
runtime_interp_head:0
tstate_interp:&((PyThreadState*)0)->interp"
	else F="$F
runtime_interp_head:&((_PyRuntimeState*)0)->interpreters.head"
	fi
fi
F="$F
tstate_next:&((PyThreadState*)0)->next
tstate_thread_id:&((PyThreadState*)0)->thread_id
code_name:&((PyCodeObject*)0)->co_name
code_filename:&((PyCodeObject*)0)->co_filename
code_firstlineno:&((PyCodeObject*)0)->co_firstlineno"
if [ $m -le 10 ]; then F="$F
interp_tstate_head:&((PyInterpreterState*)0)->tstate_head
tstate_frame:&((PyThreadState*)0)->frame
frame_back:&((PyFrameObject*)0)->f_back
frame_code:&((PyFrameObject*)0)->f_code
frame_lasti:&((PyFrameObject*)0)->f_lasti"
else F="$F
interp_tstate_head:&((PyInterpreterState*)0)->threads.head
tstate_native_tid:&((PyThreadState*)0)->native_thread_id
frame_back:&((struct _PyInterpreterFrame*)0)->previous
frame_owner:&((struct _PyInterpreterFrame*)0)->owner
code_qualname:&((PyCodeObject*)0)->co_qualname
code_adaptive:&((PyCodeObject*)0)->co_code_adaptive"
fi
[ $m -le 9 ] && F="$F
code_linetable:&((PyCodeObject*)0)->co_lnotab"
[ $m -ge 10 ] && F="$F
code_linetable:&((PyCodeObject*)0)->co_linetable"
[ $m = 11 ] && F="$F
frame_is_entry:&((struct _PyInterpreterFrame*)0)->is_entry"
if [ $m = 11 ] || [ $m = 12 ]; then F="$F
tstate_frame:&((PyThreadState*)0)->cframe
cframe_current:&((_PyCFrame*)0)->current_frame
frame_code:&((struct _PyInterpreterFrame*)0)->f_code
frame_lasti:&((struct _PyInterpreterFrame*)0)->prev_instr"; fi
if [ $m = 13 ]; then F="$F
tstate_frame:&((PyThreadState*)0)->current_frame
frame_code:&((struct _PyInterpreterFrame*)0)->f_executable
frame_lasti:&((struct _PyInterpreterFrame*)0)->instr_ptr"; fi
# The GIL: 2.7 and 3.6 keep its holder in _PyThreadState_Current (the holder at offset 0, no
# locked field); 3.7-3.11 in _PyRuntime.ceval.gil, 3.12+ where the interpreter's ceval.gil points.
if [ $M = 2 ] || [ $m -le 6 ]; then F="$F
gil_holder:0"
else
	[ $m -le 11 ] && F="$F
runtime_gil:&((_PyRuntimeState*)0)->ceval.gil"
	[ $m -ge 12 ] && F="$F
interp_gil:&((PyInterpreterState*)0)->ceval.gil"
	F="$F
gil_locked:&((struct _gil_runtime_state*)0)->locked
gil_holder:&((struct _gil_runtime_state*)0)->last_holder"
fi
echo "$F" | while IFS=: read n e; do printf -- "-ex\0printf \"%s=%%d\\\\n\", (long)(%s)\0" "$n" "$e"; done | xargs -0 gdb -batch -nx "$L" 2>&1 | grep "="
