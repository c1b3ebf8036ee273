package predictor

// Replace makes e hold the counts fresh holds, as one swap under e's
// lock: a prediction running meanwhile sees the old counts or the new
// ones, never a mix. It is how a rebuild after answers were forgotten
// takes effect (an estimator only adds answers; forgetting one is a
// rebuild without it). e keeps its own settings; fresh must not be used
// afterwards.
func (e *Estimator) Replace(fresh *Estimator) {
	fresh.mu.Lock()
	users, keys, info, novel := fresh.users, fresh.keys, fresh.info, fresh.novel
	fresh.users, fresh.keys, fresh.info, fresh.novel = nil, nil, nil, nil
	fresh.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.users, e.keys, e.info, e.novel = users, keys, info, novel
}
