#!/usr/bin/env bash
# Bulk-load COUNT synthetic messages into USER's mailbox over IMAP MULTIAPPEND (benchmarks: 20,000).
#   usage: seed.sh USER PASS COUNT [MAILBOX]          MAILBOX defaults to INBOX
#   env:   JMAP_IMAP_PORT (11143)   SEED_BATCH (250 messages per MULTIAPPEND command)
#          SEED_RUN_ID  token in every Message-ID and body; default: time, pid and a random number.
#                       Cyrus derives Email ids from the content, so a re-run with the same token
#                       would add nothing new: leave it unset unless duplicates are the point.
#          SEED_BASE_EPOCH  internal date (receivedAt) of message 1; default now - COUNT minutes;
#                       message i is received (i-1) minutes later, so the newest is about "now".
# Shape: 6 senders, 7 topics, every 5th message replies to the one before it (2-message threads),
# every 7th is multipart/alternative with an HTML part. Needs only perl (which Cyrus depends on).
set -euo pipefail
if [ $# -lt 3 ] || [ $# -gt 4 ]; then echo "usage: $0 USER PASS COUNT [MAILBOX]" >&2; exit 2; fi
case "$3" in ''|*[!0-9]*) echo "COUNT must be a number: $3" >&2; exit 2 ;; esac
export SEED_USER="$1" SEED_PASS="$2" SEED_COUNT="$3" SEED_MAILBOX="${4:-INBOX}"
export SEED_PORT="${JMAP_IMAP_PORT:-11143}" SEED_BATCH="${SEED_BATCH:-250}"
export SEED_RUN_ID="${SEED_RUN_ID:-$(date +%s)-$$-$RANDOM}"
export SEED_BASE_EPOCH="${SEED_BASE_EPOCH:-$(( $(date +%s) - 60 * $3 ))}"

exec perl -e '
use strict; use warnings; use IO::Socket::INET; use POSIX qw(strftime); use Time::HiRes qw(time);
my ($user, $pass, $count, $mbox, $port, $batch, $run, $base) =
  @ENV{qw(SEED_USER SEED_PASS SEED_COUNT SEED_MAILBOX SEED_PORT SEED_BATCH SEED_RUN_ID SEED_BASE_EPOCH)};
my @senders = (["Carol Customer", "carol\@customer.example"], ["Dave Supplier", "dave\@supplier.example"],
  ["Erin Partner", "erin\@partner.example"], ["Frank Lead", "frank\@leads.example"],
  ["Grace Support", "grace\@support.example"], ["Heidi Investor", "heidi\@investor.example"]);
my @topics = ("Quote request", "Invoice question", "Meeting follow-up", "Contract renewal",
  "Product demo", "Shipping delay", "Support ticket");
sub quoted { my $s = shift; $s =~ s/(["\\])/\\$1/g; qq{"$s"} }

sub message {    # returns (raw RFC 5322 text with CRLF, received epoch)
  my ($i) = @_;
  my $reply = $i % 5 == 0;
  my $k = $reply ? $i - 1 : $i;    # a reply continues the thread of the message before it
  my ($name, $addr) = @{ $senders[($k - 1) % @senders] };
  my $t = $base + ($i - 1) * 60;
  my $subject = ($reply ? "Re: " : "") . $topics[($k - 1) % @topics] . " #$k";
  my $h = "From: \"$name\" <$addr>\r\nTo: <$user>\r\nSubject: $subject\r\n"
        . "Date: " . strftime("%a, %d %b %Y %H:%M:%S +0000", gmtime $t) . "\r\n"
        . "Message-ID: <seed-$run-$i\@example.test>\r\n";
  $h .= "In-Reply-To: <seed-$run-$k\@example.test>\r\nReferences: <seed-$run-$k\@example.test>\r\n" if $reply;
  $h .= "MIME-Version: 1.0\r\n";
  my $text = "Hello,\r\n\r\nthis is seeded message $i from $name about \"$subject\".\r\n"
           . "Seed run $run.\r\n\r\n-- \r\n$name\r\n";
  return ($h . "Content-Type: text/plain; charset=utf-8\r\n\r\n" . $text, $t) if $i % 7;
  my $b = "alt-$run-$i";
  (my $html = $text) =~ s/\r\n/<br>\r\n/g;
  return ($h . "Content-Type: multipart/alternative; boundary=\"$b\"\r\n\r\n"
    . "--$b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n$text\r\n"
    . "--$b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>$html</body></html>\r\n--$b--\r\n", $t);
}

my $started = time;
my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port) or die "imap connect 127.0.0.1:$port: $!\n";
binmode $s;
my $greeting = <$s> // die "imap: no greeting\n";
die "imap greeting: $greeting" unless $greeting =~ /^\* OK/;
my $n = 0;
sub command {    # sends one command, dies unless its tagged answer is OK
  my ($c) = @_; my $tag = "s" . ++$n;
  print $s "$tag $c\r\n";
  while (defined(my $l = <$s>)) {
    next unless $l =~ /^\Q$tag\E /;
    die "imap: $l" unless $l =~ /^\Q$tag\E OK/;
    return;
  }
  die "imap: connection closed\n";
}
command("LOGIN " . quoted($user) . " " . quoted($pass));
for (my $i = 1; $i <= $count; $i += $batch) {
  my $last = $i + $batch - 1; $last = $count if $last > $count;
  my $c = "APPEND " . quoted($mbox);
  for my $j ($i .. $last) {    # MULTIAPPEND (RFC 3502) with non-synchronizing literals (LITERAL+)
    my ($m, $t) = message($j);
    $c .= " () \"" . strftime("%d-%b-%Y %H:%M:%S +0000", gmtime $t) . "\" {" . length($m) . "+}\r\n" . $m;
  }
  command($c);
}
command("LOGOUT");
printf "seeded %d message(s) into %s/%s in %.1f s (run %s)\n", $count, $user, $mbox, time - $started, $run;
'
