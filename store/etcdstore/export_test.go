package etcdstore

import (
	"context"
	"time"

	storev1 "github.com/limenhq/limen/store/storev1"
)

// SetScanPage sets how many keys a walk reads per request, and returns
// how to set it back.
func SetScanPage(n int64) (restore func()) {
	old := scanPage
	scanPage = n
	return func() { scanPage = old }
}

// WatchAnswersFrom is WatchAnswers for a watcher that has delivered the
// answers up to seq last and stopped at revision rev: a replica that fell
// behind.
func (s *Store) WatchAnswersFrom(ctx context.Context, last uint64, rev int64, fn func(*storev1.AnswerRecord, int64)) error {
	return s.watchAnswersFrom(ctx, last, rev, fn)
}

// TrimLog runs one pass of the decision log's retention as of now.
func (s *Store) TrimLog(ctx context.Context, now time.Time) (int, error) { return s.trimLog(ctx, now) }

// MeasureDB measures etcd's database size now, as the retention pass does.
func (s *Store) MeasureDB(ctx context.Context) { s.measureDB(ctx) }

// IDBlock is how many ids one reservation covers.
const IDBlock = idBlock
