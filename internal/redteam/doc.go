// Package redteam holds the end-to-end attack test: a real limend learns an
// ordinary day of work from a person's approvals, and then a corpus of
// hidden destructive, secret-reading, remote-code and limen-disabling
// actions must get anything but allow. The corpus (testdata/attacks.txt)
// was written apart from the code and the unit tests that harden each
// class, so it measures the classes, not the spellings those tests know.
package redteam
