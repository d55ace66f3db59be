#!/bin/sh
# Regenerates the native fixtures of the symbolication tests (gcc, LLVM 14's yaml2obj, llvm-lipo,
# nm, llvm-readelf, llvm-dwarfdump). Run from this directory.
#   libgame.so          an Android-style NDK library built by gcc, with a GNU build id
#   libgame-b.so        another build of it (game-b.c: new code, so another build id and layout)
#   Shop                the DWARF file of an iOS dSYM (Mach-O, MH_DSYM, arm64, LC_UUID, LC_SYMTAB),
#                       written by yaml2obj from Shop.dsym.yaml (no Mach-O linker here); its
#                       functions sit where llc -mtriple=arm64-apple-ios puts game.c's in __text
#   Shop-universal      a universal file of Shop and an x86_64 slice with another UUID
#   *.nm.txt, *.id.txt  what the tools say: the expected answers of the tests
set -eu
gcc -g -O1 -shared -fPIC -Wl,--build-id -o libgame.so game.c
nm -S libgame.so | awk '$3 ~ /^[tT]$/ && NF == 4' > libgame.so.nm.txt
llvm-readelf -n libgame.so | sed -n 's/.*Build ID: //p' > libgame.so.id.txt
gcc -g -O1 -shared -fPIC -Wl,--build-id -o libgame-b.so game-b.c
nm -S libgame-b.so | awk '$3 ~ /^[tT]$/ && NF == 4' > libgame-b.so.nm.txt
llvm-readelf -n libgame-b.so | sed -n 's/.*Build ID: //p' > libgame-b.so.id.txt
yaml2obj Shop.dsym.yaml -o Shop
sed -e 's/cputype:         0x100000C/cputype:         0x1000007/' -e 's/uuid:            8A1F6C2E/uuid:            11111111/' Shop.dsym.yaml > Shop-x86.yaml
yaml2obj Shop-x86.yaml -o Shop-x86
llvm-lipo -create Shop Shop-x86 -output Shop-universal
rm Shop-x86 Shop-x86.yaml
llvm-nm -n Shop | awk '$2 ~ /^[tT]$/' > Shop.nm.txt
llvm-dwarfdump --uuid Shop | awk '{print $2}' > Shop.id.txt
