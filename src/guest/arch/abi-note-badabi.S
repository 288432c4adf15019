/* abi-note-badabi.S: an ABI note with a version no csan-vmm accepts. */
#define GUEST_ABI_NOTE_VERSION 999
#include "abi-note.S"
