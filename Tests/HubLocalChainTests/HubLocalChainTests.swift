// Tests of the local chain rail (issue 6).
