#!/bin/bash
# Runs a command and samples its /proc/PID/status every 50 ms: prints the peaks of its
# anonymous memory (RssAnon: what the process allocated) and of its file-backed pages
# (RssFile: mapped index files it has touched, which stay in the page cache when dropped).
# /usr/bin/time's maximum RSS counts both.
#
#   eval/index/rss.sh target/release/fimdup index add IDX batch.jsonl --batch --json
#
# The command's stdout and stderr go to /tmp/rss.out and /tmp/rss.err.
"$@" > /tmp/rss.out 2>/tmp/rss.err &
pid=$!
ma=0; mf=0
while kill -0 $pid 2>/dev/null; do
  read a f < <(awk '/RssAnon/{a=$2} /RssFile/{f=$2} END{print a+0, f+0}' /proc/$pid/status 2>/dev/null)
  [ -n "$a" ] && [ "$a" -gt "$ma" ] && ma=$a
  [ -n "$f" ] && [ "$f" -gt "$mf" ] && mf=$f
  sleep 0.05
done
wait $pid
echo "peak RssAnon $((ma/1024)) MiB, peak RssFile $((mf/1024)) MiB"
