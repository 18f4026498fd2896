#!/usr/bin/env bash
# Times the README's first command, `bash scripts/quickstart.sh bench`, on a fresh Debian 12 root
# made with debootstrap (packages included), as a new user meets it: a fresh clone (of this
# repository's committed HEAD), root, no ccache, a clean environment. Every output line is
# time-stamped in seconds from the start (ts, from moreutils). Run as root on a Debian machine
# with network access to deb.debian.org:
#   bash scripts/time_fresh_quickstart.sh <work-dir> [quickstart mode and arguments, default: bench]
# <work-dir> keeps a pristine tarball of the debootstrap root (made on the first run, reused
# after), a fresh copy of it in <work-dir>/root for each run (deleted at the end) and the logs.
# The root gets bookworm, bookworm-updates and bookworm-security, as a fresh installation has.
set -euo pipefail

if [[ $# -lt 1 || $(id -u) -ne 0 ]]; then
  echo "usage (as root): $0 <work-dir> [bench|test ...]" >&2
  exit 2
fi
work=$(mkdir -p "$1" && cd "$1" && pwd)
shift
mode=("${@:-bench}")
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
for tool in debootstrap ts git; do
  command -v "$tool" >/dev/null || { echo "$0: needs $tool (apt-get install debootstrap moreutils git)" >&2; exit 1; }
done

pristine=$work/bookworm.tar
if [[ ! -f $pristine ]]; then
  rm -rf "$work/pristine"
  debootstrap bookworm "$work/pristine" http://deb.debian.org/debian
  cat > "$work/pristine/etc/apt/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
  tar -C "$work/pristine" -cpf "$pristine" .
  rm -rf "$work/pristine"
fi

root=$work/root
mounts=(proc sys dev dev/pts)
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    if mountpoint -q "$root/${mounts[i]}"; then umount "$root/${mounts[i]}"; fi
  done
  if ! grep -q " $root/" /proc/mounts; then rm -rf "$root"; fi
}
trap cleanup EXIT
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" -xpf "$pristine"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
git clone -q "$repo" "$root/root/efield"
commit=$(git -C "$root/root/efield" rev-parse --short HEAD)

log=$work/quickstart-$(date -u +%Y%m%dT%H%M%S).log
packages_before=$(chroot "$root" dpkg-query -W -f='${Package}\n' | sort)
used_before=$(du -smx --exclude="*/root/efield" --exclude="*/var/cache/apt/archives" "$root" | cut -f1)
{
  echo "commit $commit, $(nproc) cores, $(date -u)"
  echo "load before: $(uptime)"
} | tee "$log"
status=0
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd /root/efield && bash scripts/quickstart.sh "$@"' quickstart "${mode[@]}" 2>&1 \
  | ts -s '%.s' | tee -a "$log" || status=$?
packages_after=$(chroot "$root" dpkg-query -W -f='${Package}\n' | sort)
{
  echo "load after: $(uptime)"
  echo "packages installed: $(comm -13 <(echo "$packages_before") <(echo "$packages_after") | wc -l)"
  echo "downloaded: $(du -smx "$root/var/cache/apt/archives" | cut -f1) MB of .deb files"
  echo "disk used by the installation: $(( $(du -smx --exclude="*/root/efield" --exclude="*/var/cache/apt/archives" "$root" | cut -f1) - used_before )) MB"
  echo "exit status: $status"
} | tee -a "$log"
echo "log: $log"
exit $status
