"""Real-browser tests and the server/chromium helpers that benchmarks and scripts reuse."""
