// Package store is limen's durable state: the answers people gave (the log
// the predictor learns from), the asks that wait for a person, the policy
// versions and the decision log. It is a thin layer over one bbolt file.
//
// # Basics
//
// Open the store once per process; a second process gets ErrLocked after
// Options.LockTimeout instead of waiting forever. Every method is safe for
// concurrent use. Close flushes the decision log before it closes the file.
//
// What limen promises:
//
//   - An answer acknowledged is on disk. Answer commits its transaction,
//     with fsync, before it returns; a crash after that cannot lose it.
//     That transaction removes the pending ask and appends the answer to
//     the answer log, which holds everything the outcome says; the outcome
//     on the decision record is written behind by the batcher below, and
//     Open writes any that a crash left unwritten (see Answers and
//     outcomes).
//   - Pending asks (AddPending, Expire) and policy versions (SetPolicy) are
//     written synchronously the same way, each in one transaction.
//   - Decisions that did not ask (allow and block) are written off the
//     Decide path: LogDecision hands them to a batcher that commits every
//     Options.FlushInterval (50ms) or Options.MaxBatch (512) records. A
//     crash can lose the last few hundred milliseconds of those records —
//     never an answer, never a pending ask.
//   - Ids are never reused, not even after a crash (see NextID).
//
// Records are protocol buffers (proto.Marshal of the messages in
// storev1, defined in proto/limen/store/v1/store.proto): fast to encode
// and decode, and evolvable by field number, so a newer limen reads an
// older file and an older one skips fields it does not know. Keys are
// big-endian uint64, so bbolt's cursor order is numeric order, which for
// ids and sequence numbers is time order.
//
// The records are the store's own messages, not the API's (limenv1):
// limend converts between the two (internal/server/storeconv.go), so an
// API change is not a change of anyone's file, and the store links no
// gRPC. Files written before that split (schema version 2, still the
// current one) hold limenv1 messages; storev1 began as a copy of them with
// the same field numbers and types, so those files read as they are, with
// no migration and no schema version bump
// (TestReadsFilesWrittenWithAPIMessages opens one the old code wrote). A
// migration would have rewritten every record of every file at the first
// start, for bytes that are already right. From here the two evolve apart:
// store.proto changes only as stored data may (a new field under a new
// number; a number never reused or retyped), and anything else is a
// migration in schema.go.
//
// Decision ids and ask ids share one id space: an ask's id is the id of the
// decision that asked. The API shows ids as decimal strings ("42"); use
// FormatID and ParseID.
//
// # Schema
//
// Version 2, drawn as bucket/key -> value:
//
//	meta/schema_version      -> uint64 (big-endian)
//	meta/id_reserved         -> uint64: ids below this may have been handed out
//	meta/outcomes_through    -> uint64: the answers up to this seq have their outcome on their decision
//	decisions/<id u64>       -> storev1.Decision
//	pending/<id u64>         -> storev1.PendingAsk
//	answers/<seq u64>        -> storev1.AnswerRecord  (append-only; seq from bucket.NextSequence)
//	policies/<version u64>   -> storev1.Policy
//	devices/<id>             -> storev1.Device  (the web app's paired browsers; made by the first PutDevice, no migration)
//	forgotten/<seq u64>      -> storev1.ForgetMark    (answers a person took back; made by the first Forget)
//
// Open runs the migrations (an ordered list in schema.go, each with a test)
// that the file has not seen yet, in one transaction, and writes the new
// schema version. A file whose schema version is newer than this build
// knows is refused with ErrSchemaTooNew rather than guessed at.
//
// Version 2 added meta/outcomes_through (version 1 set each outcome in
// Answer's own transaction).
//
// # Answers and outcomes
//
// An answer touches two B-trees in its fsynced transaction (pending and
// answers), not three: setting the outcome on the decision record in the
// same transaction made every answer flush another tree's pages, about 1.4×
// the commit of one key where the target was 1.2× (docs/BENCHMARKS.md).
// Instead Answer hands the outcome to the batcher, which sets it with the
// next batch of logged decisions and moves meta/outcomes_through in the
// same transaction. Until then History, Decision and Decisions fill it in
// from memory, so once Answer has returned no reader sees the ask without
// its outcome.
// After a crash, Open sets the outcomes of the answers past the mark from
// the answer log (the outcome is the answer's choice, scope, note, person
// and time) and moves the mark: nothing a person answered is lost, and a
// decision record is the same as if it had been written at once.
//
// # Damaged files and full disks
//
// Open reads the whole file once (every bucket, key and value) and checks
// that its pages fit in it, so a truncated or corrupt file is refused at
// start with ErrCorrupt and the fix (move it aside, or restore a backup)
// instead of a panic now or a fault later; bbolt's panics and the memory
// faults of reading past a truncated file are recovered. A file of 0 bytes
// is refused with ErrEmpty: bbolt would quietly make a new database of it
// over the lost history. Limen does not move either aside by itself, so
// that a person sees it: limend stays down, and its clients ask.
//
// A store that cannot be written must not let allows out unrecorded, and
// the decision log is written behind the decisions, so LogErr says when it
// cannot be: from a commit that failed until one succeeds, and while the
// file system has less than Options.MinFreeSpace (1 MiB) available, which
// LogErr itself looks at (statfs) at most once a millisecond. limend turns
// every allow into ask while LogErr is not nil, and reports NOT_SERVING;
// Options.OnLogHealth hears of each change once. So on a disk that fills
// up the allows stop within a millisecond rather than at a failed commit
// one batch later. The records of failed commits are kept (the newest
// 4×MaxBatch; older ones are dropped and counted) and retried with the
// next batch, or every few FlushIntervals when none comes: they are
// written late rather than lost, unless limend stops first.
//
// # Caveats
//
// The decision log is eventually durable, as said above; call Flush when a
// reader must see every record logged so far (History reads only what is
// committed).
//
// Answers reuses one message for every record it passes to its callback, so
// that replaying a million answers at start is fast; the callback must not
// keep it. AnswerViews, which limend's start uses, goes further: it decodes
// only the fields the predictor needs, in place, with no allocation per
// record, and its views point into the file's memory map.
//
// NextID reserves ids in blocks of 4096 with one synchronous write per
// block. A clean Close gives the unused rest of the block back, so after a
// clean restart ids go on from where they stopped; after a crash they jump
// by up to a block, which is what keeps them unique. Ids are unique and
// increasing, but not dense.
//
// Every synchronous write costs an fsync; on a laptop SSD that is around a
// millisecond, which bounds the answer rate, not the decision rate.
// Options.NoSync removes it and, with it, every promise above: benchmarks only.
//
// bbolt keeps the whole file mapped and never shrinks it; the decision log
// grows without bound until a retention policy is added (a later migration).
package store
