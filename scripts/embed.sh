#!/bin/sh
# embed.sh NAME FILE: a C file defining `const char NAME[]` (FILE's bytes,
# NUL-terminated) and `const unsigned long NAME_len`, so JavaScript the
# worker loads lives in its own file yet ships inside the binary.
set -eu
name=$1
file=$2
echo "/* Generated from $file by scripts/embed.sh. */"
echo "const char $name[] = {"
od -An -v -tx1 "$file" | sed 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/\t/'
echo "0x00};"
echo "const unsigned long ${name}_len = sizeof $name - 1;"
