// Package etcdstore is limen's durable state in etcd, for a team: several
// limend servers share one prefix of one etcd cluster, so an ask, an
// answer, a policy version and an id mean the same on every one of them,
// and the loss of any one etcd member (of three) loses nothing
// acknowledged. It implements store.Backend and passes the same
// conformance suite as the bbolt file (store/storetest); the bbolt file
// stays the zero-configuration default.
//
// # Schema
//
// Version 1, drawn as key -> value under Options.Prefix (default
// "/limen/"); <n> is a number as 16 lower-case hex digits, so that etcd's
// byte order of keys is numeric order, which for ids and sequence numbers
// is time order (bbolt's big-endian keys, spelled so that etcdctl can
// show them):
//
//	meta/schema_version   -> decimal: the version of this schema
//	meta/id_reserved      -> decimal: ids below this may have been handed out
//	meta/answer_seq       -> decimal: the seq of the last answer in answers/
//	decisions/<id>        -> storev1.Decision
//	pending/<id>          -> storev1.PendingAsk
//	answers/<seq>         -> storev1.AnswerRecord  (append-only; seq = answer_seq + 1)
//	policies/<version>    -> storev1.Policy
//	devices/<id>          -> storev1.Device  (the web app's paired browsers)
//	forgotten/<seq>       -> storev1.ForgetMark    (answers a person took back; forget.go)
//	grants/<hash>         -> JSON {user, session, key}  (under a lease; see Session grants)
//	replicas/<hex name>   -> limen.v1.Replica: a limend's report of itself (under a lease of 15s)
//
// The records are the bbolt store's messages (store/storev1), encoded the
// same way, so a record copied from one store to the other means the same.
// Open writes meta/schema_version on a new prefix and refuses a prefix
// whose version is newer than SchemaVersion (store.ErrSchemaTooNew) or
// not a number (store.ErrCorrupt). A migration, when one is needed, will
// be an ordered list like store/schema.go's, run by whichever limend first
// takes a lease on the prefix.
//
// # Transactions
//
// Every write that must be durable is one etcd transaction, acknowledged
// only once a majority of members has it in its log:
//
//   - Answer reads the pending ask, the decision and meta/answer_seq, then
//     commits, if none of the three changed (their mod revisions), the
//     deletion of the pending ask, the decision with its outcome, the
//     answer under the next seq and the new meta/answer_seq. Of two
//     answers to one ask, on any limends, exactly one commits; the other
//     reads again and fails with store.ErrResolved. Answers to different
//     asks meet only at meta/answer_seq, and the loser reads again: at a
//     person's rate of answers that costs nothing, and it makes seq order
//     the etcd revision order of the answers, with no gaps, so a replica
//     can apply them in order from a watch. Unlike the bbolt store there is
//     no outcome written behind: one etcd transaction costs the same for
//     one key or four.
//   - Expire is the same without the answer: any limend's timer may run
//     it, and the one that loses a race fails with store.ErrResolved.
//   - AddPending puts the decision and the pending ask if the decision has
//     not changed since it read it without an outcome.
//   - SetPolicy puts policies/<expected+1> if it does not exist and
//     policies/<expected> does (versions are only written there, one after
//     another, so that is "the newest version is expected").
//   - NextID takes a block of 4096 ids by compare-and-set on
//     meta/id_reserved; a Store hands out its block with a mutex, and a
//     clean Close gives back the unused rest if no one reserved after it.
//     Ids are unique across limends and increasing within each, not
//     globally ordered between them.
//
// The decision log (LogDecision) is written behind, as in the bbolt
// store: a batcher commits every Options.FlushInterval or
// Options.MaxBatch records, in transactions of at most 64 records and
// 512 KiB (etcd takes 128 operations and 1.5 MiB a request by default),
// each record a nested transaction that puts it only if its id has none,
// so an ask's record and outcome are never overwritten. A failed commit
// is kept for a retry and makes LogErr report store.ErrLogUnwritable, so
// limend turns allows into asks meanwhile. Its records of 2 KiB or more
// are stored DEFLATEd behind a 0xff byte when that is smaller
// (compress.go; no protobuf message starts with 0xff, so plain records
// read as before).
// The log keeps inside a budget of its own (retention.go): a pass every
// minute deletes the oldest records beyond Options.LogRecords and those
// older than Options.LogRetention, never a pending ask's; and past
// Options.LogMaxDB of etcd's database (half etcd's default quota) no
// decision record is written at all, so that the log can never bring
// etcd to its NOSPACE alarm, which would stop answers too.
//
// # Watching the others
//
// WatchPending (store.PendingWatcher) watches pending/ from the revision
// the last Pending read, so that limend's start (Pending, then the watch)
// misses nothing: a put is an ask another limend queued, a delete one it
// answered or expired, reported with the decision, outcome and answer
// record read at the delete's revision. Changes this Store made itself are counted as they
// are written and skipped on the watch. A watch that ends (compaction,
// no leader) is set up again at the present after a Resync that lists the
// pending asks.
//
// # Answers in order, on every replica
//
// WatchAnswers (store.AnswerWatcher) lists answers/ after a given seq,
// then watches it from the list's revision: every answer, each once, in
// seq order, which is the order of their revisions. limend applies every
// answer to its predictor only from there, its own answers too, so that
// all replicas count the same answers in the same order and hold equal
// counts (their hash is in limenctl status). The answers are never
// deleted, so a watch that ends, skips a seq or finds its history
// compacted lists again from the last seq it delivered and loses nothing.
//
// # Session grants
//
// An approval for the session stores its grants in the answer's
// transaction (AnswerGranting, store.GrantStore), attached to a lease of
// Options.GrantTTL (24h) taken just before: etcd deletes them when it
// ends, so no limend's timer has to run. WatchGrants lists the live ones
// and follows puts and deletes; a limend started later knows them.
//
// # Failing closed
//
// The store notes when a request last reached a quorum (a commit of the
// decision log, or a prober's linearizable read every Staleness/5). Once
// WatchAnswers runs, that is not enough: the view must be provably fresh.
// Each probe's linearizable read returns etcd's revision at its time T,
// and each watch asks for progress notifications; once the answer watch
// and, when they run, the policy and grant watches have delivered
// everything up to that revision, the view is proven complete as of T
// (Freshness). Past Options.Staleness (5 s) since
// the last proof LogErr reports store.ErrLogUnwritable, so limend turns
// allows into asks and reports NOT_SERVING (through OnLogHealth): a lost
// quorum, a partitioned member (which still serves serializable reads)
// and a watch that fell behind all count. Meanwhile Answer fails at once
// with that error ("the answer is not stored", never half-written), and
// so do AddPending, Expire, SetPolicy and new id blocks once no quorum
// has been reached within Staleness, instead of waiting out a timeout: an
// ask is then an ask without an id. Those writes do not depend on the
// view, so a quorum alone lets them go on while a watch catches up and
// while limend stops. Blocks still block: they are decided in memory.
//
// # Caveats
//
// WatchPolicy (store.PolicyWatcher) reports every policy version put on
// the prefix, the newest first, and limend switches to the highest it has
// heard of, so a policy set on one limend is in force on all within the
// watch's delay. The decision log's deleted records free room in etcd only
// once etcd compacts its history and is defragmented: run etcd with
// --auto-compaction-mode=periodic, and defragment it now and then
// (docs/scale-out.md).
//
// Every request is bounded by Options.Timeout (5 s). A write in flight
// when the etcd leader is lost waits out that deadline, since etcd does
// not retry it: Answer then returns an error without saying whether it
// committed, and a retry of the same answer fails with store.ErrResolved
// if it had. Walks (Answers, History, Decisions) read in pages at the
// revision of their first page, so a compaction during a long walk fails
// it rather than mixing two states.
package etcdstore
