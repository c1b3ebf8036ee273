package engine

// Explain exposes explain to the external tests.
var Explain = explain
