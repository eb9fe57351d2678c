#!/usr/bin/env bash
# Rebuild the seed corpus of the dwarf_load fuzz target (small ELF files with DWARF by gcc).
# The committed seeds were made with gcc 12 / binutils 2.40 (Debian 12); rerunning this with
# another toolchain gives different, equally valid, bytes.
#
#   bash fuzz/seeds/make_seeds.sh
set -euo pipefail
cd "$(dirname "$0")"
out=dwarf_load
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small() { objcopy -R .comment -R .note.gnu.property -R .eh_frame -R .note.GNU-stack "$@" 2>/dev/null; }
exe=(-nostdlib -static -Wl,--build-id=none)
# Relocatable objects (relocations in .rela.debug_* left unapplied), one unit each.
gcc -g -O0 -c -o "$tmp/a.o" src/a.c && small "$tmp/a.o" "$out/obj_g"
gcc -g -gz=zlib -O0 -c -o "$tmp/a.o" src/a.c && small "$tmp/a.o" "$out/obj_gz_zlib"
gcc -gdwarf-4 -O0 -c -o "$tmp/a.o" src/a.c && small "$tmp/a.o" "$out/obj_dwarf4"
# Linked executables, two units, .debug_aranges present.
gcc -g -O0 "${exe[@]}" -o "$tmp/e" src/a.c src/b.c && small "$tmp/e" "$out/exe_g"
# DWARF 4 at -O1 (location lists), sections compressed with zlib (SHF_COMPRESSED).
gcc -gdwarf-4 -O1 "${exe[@]}" -o "$tmp/e" src/a.c src/b.c && small --compress-debug-sections=zlib "$tmp/e" "$out/exe_O1_dwarf4_zlib"
# The old GNU compression: .zdebug_* sections.
gcc -g -O0 "${exe[@]}" -o "$tmp/e" src/a.c src/b.c && small --compress-debug-sections=zlib-gnu "$tmp/e" "$out/exe_zdebug_gnu"
ls -l "$out"
