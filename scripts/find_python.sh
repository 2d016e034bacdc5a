#!/usr/bin/env sh
# Print the path of a Python >= 3.13 interpreter, or explain what to install and fail.
# Looks at python3.13+/python3 on PATH, then at pyenv's installed versions (pyenv shims
# refuse versions that are installed but not selected, so they are asked directly).
ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 13))' >/dev/null 2>&1; }
for cand in python3.14 python3.13 python3; do
    if command -v "$cand" >/dev/null 2>&1 && ok "$cand"; then
        "$cand" -c 'import sys; print(sys.executable)'
        exit 0
    fi
done
if command -v pyenv >/dev/null 2>&1; then
    root=$(pyenv root)
    for dir in $(ls -d "$root"/versions/3.1[3-9]* 2>/dev/null | sort -rV); do
        if ok "$dir/bin/python3"; then echo "$dir/bin/python3"; exit 0; fi
    done
fi
echo "nesbot needs Python 3.13 or newer, and none was found (looked for python3.14, python3.13," >&2
echo "python3 on PATH and in pyenv). Install it, e.g. 'pyenv install 3.13' or your OS package python3.13." >&2
exit 1
