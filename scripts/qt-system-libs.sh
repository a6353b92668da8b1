#!/usr/bin/env sh
# Qt's xcb platform plugin (a real window on X11) needs a few system libraries that a bare
# Debian/Ubuntu machine lacks. Offscreen rendering (tests, screenshots) needs none of them.
# Installs what is missing when run as root with apt-get; otherwise says what to install.
set -eu
plugin=$(ls .venv/lib/python3*/site-packages/PySide6/Qt/plugins/platforms/libqxcb.so 2>/dev/null | head -n 1)
[ -n "$plugin" ] || exit 0
missing=$( (ldd "$plugin"; ldd "$(dirname "$plugin")/../../lib/libQt6XcbQpa.so.6") 2>/dev/null \
  | awk '/not found/ {print $1}' | sort -u)
ldconfig -p 2>/dev/null | grep -q 'libxcb-cursor.so.0' || missing="$missing libxcb-cursor.so.0"
[ -n "$(echo "$missing" | tr -d ' ')" ] || exit 0
pkgs=$(for lib in $missing; do
  case $lib in
    libxcb-cursor*) echo libxcb-cursor0 ;; libxcb-icccm*) echo libxcb-icccm4 ;;
    libxcb-keysyms*) echo libxcb-keysyms1 ;; libxcb-image*) echo libxcb-image0 ;;
    libxcb-render-util*) echo libxcb-render-util0 ;; libxkbcommon-x11*) echo libxkbcommon-x11-0 ;;
    libxcb-xkb*) echo libxcb-xkb1 ;; libxcb-shape*) echo libxcb-shape0 ;;
    libxcb-randr*) echo libxcb-randr0 ;; libxcb-xinerama*) echo libxcb-xinerama0 ;;
    libEGL*) echo libegl1 ;; libGL*) echo libgl1 ;; libfontconfig*) echo libfontconfig1 ;;
    libdbus*) echo libdbus-1-3 ;; *) echo "($lib)" ;;
  esac; done | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing the system libraries Qt needs for a window: $pkgs"
  apt-get install -y -qq $pkgs >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1; apt-get install -y -qq $pkgs >/dev/null; }
else
  echo "Qt needs these system packages for a window: $pkgs (install them, e.g. sudo apt-get install $pkgs)"
fi
