#!/usr/bin/env bash
# Checks that src/ keeps its layers (src/README.md): every quoted #include
# under src/ names a header as "layer/file.h" of a folder its own layer may
# use, and no layer below step/ names the world struct (ts_world), which
# would let it reach the layers above. Prints what each layer includes, then
# every break with its file and line; exits 1 when there is one.
#
#   scripts/check_layers.sh          check src/ of this checkout
#   scripts/check_layers.sh DIR      check DIR (a src/ tree) instead
set -euo pipefail

cd "$(dirname "$0")/.."
SRC="${1:-src}"

# The layers, lowest first, and the folders each may include from (its own
# and those below it that it has business with). collide and islands are
# siblings: neither includes the other; the step links their work.
LAYERS="base soa collide islands solver step api"
declare -A MAY=(
    [base]="base"
    [soa]="base soa"
    [collide]="base soa collide"
    [islands]="base soa islands"
    [solver]="base soa islands solver"
    [step]="base soa collide islands solver step"
    [api]="base soa collide islands solver step api"
)

breaks=0
report() {
    echo "BREAK $1"
    breaks=$((breaks + 1))
}

# Files directly in src/ belong to no layer.
for file in "$SRC"/*.c "$SRC"/*.h; do
    [ -e "$file" ] && report "$file: not in a layer's folder (src/README.md says where it goes)"
done

declare -A seen=()
for layer in $LAYERS; do
    [ -d "$SRC/$layer" ] || { report "$SRC/$layer: the layer's folder is missing"; continue; }
    while IFS= read -r hit; do
        file="${hit%%:*}"
        rest="${hit#*:}"
        line="${rest%%:*}"
        [[ "${rest#*:}" =~ \"([^\"]+)\" ]] && target="${BASH_REMATCH[1]}"
        folder="${target%%/*}"
        if [ "$folder" = "tessera" ]; then
            continue # the public API (include/tessera/)
        fi
        if [ "$folder" = "$target" ] || [[ "$target" == ../* ]]; then
            report "$file:$line: #include \"$target\" is not written as \"layer/file.h\""
            continue
        fi
        if [ ! -e "$SRC/$target" ]; then
            report "$file:$line: #include \"$target\": no such file under $SRC/"
            continue
        fi
        seen["$layer -> $folder"]=$((${seen["$layer -> $folder"]:-0} + 1))
        if [[ " ${MAY[$layer]} " != *" $folder "* ]]; then
            report "$file:$line: $layer/ includes $target ($folder/ is not among the layers $layer/ may use: ${MAY[$layer]})"
        fi
    done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$SRC/$layer" --include='*.c' --include='*.h' || true)
    case "$layer" in
    step | api) ;;
    *)
        while IFS= read -r hit; do
            rest="${hit#*:}"
            report "${hit%%:*}:${rest%%:*}: $layer/ names ts_world, the step's struct (pass the parts it needs instead)"
        done < <(grep -rnwE 'ts_world|struct ts_world' "$SRC/$layer" --include='*.c' --include='*.h' || true)
        ;;
    esac
done

echo "includes between layers (layer -> folder: quoted includes):"
for layer in $LAYERS; do
    for folder in $LAYERS; do
        count="${seen["$layer -> $folder"]:-}"
        [ -n "$count" ] && printf '  %-8s -> %-8s %4d\n' "$layer" "$folder" "$count"
    done
done
if [ "$breaks" -gt 0 ]; then
    echo "check_layers: $breaks break(s) of the layering (src/README.md)"
    exit 1
fi
echo "check_layers: every include follows the layers"
