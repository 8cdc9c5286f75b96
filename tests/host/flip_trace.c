/*
 * tests/host/flip_trace.c: flipstress's trace chain check (tests/guest/
 * flipstress.c, trace_event_line()) on made-up trace_pipe lines (make
 * check): a chain passes; two changes with one timestamp that came out of
 * order are taken in the order that chains; a real break, the same
 * swap with two timestamps, and a non-change each count a break.
 */
#define main flipstress_main
#include "../guest/flipstress.c"
#undef main

static int cases_failed;

static void feed(const char *start, const char *const *lines)
{
	log_lines = log_breaks = log_gaps = log_ties = 0;
	log_held.on = false;
	snprintf(log_last_to, sizeof(log_last_to), "%s", start);
	for (int i = 0; lines[i]; i++)
		trace_event_line(lines[i]);
	log_flush();
}

static void expect(const char *what, long breaks, long ties, const char *last)
{
	bool ok = log_breaks == breaks && log_ties == ties && !strcmp(log_last_to, last);

	printf("%sok - %s (breaks %ld, ties %ld, last %s)\n", ok ? "" : "not ", what,
	       log_breaks, log_ties, log_last_to);
	cases_failed += !ok;
}

#define EV(ts, cpu, a, b) \
	" flipstress-90 [00" cpu "] ..... " ts ": cow_policy_change: old=" a " new=" b

int main(void)
{
	static const char *const chain[] = {
		EV("1.000001", "0", "exclusive", "refcount"),
		EV("1.000009", "1", "refcount", "mapcount"),
		EV("1.000020", "0", "mapcount", "exclusive"), NULL };
	static const char *const tie[] = {
		EV("1.000001", "0", "exclusive", "refcount"),
		EV("1.000009", "0", "mapcount", "exclusive"),	/* came first */
		EV("1.000009", "1", "refcount", "mapcount"), NULL };
	static const char *const untied[] = {
		EV("1.000001", "0", "exclusive", "refcount"),
		EV("1.000008", "0", "mapcount", "exclusive"),
		EV("1.000009", "1", "refcount", "mapcount"), NULL };
	static const char *const broken[] = {
		EV("1.000001", "0", "exclusive", "refcount"),
		EV("1.000009", "1", "mapcount", "exclusive"), NULL };
	static const char *const same[] = {
		EV("1.000001", "0", "exclusive", "exclusive"), NULL };

	feed("exclusive", chain);
	expect("a chain of changes", 0, 0, "exclusive");
	feed("exclusive", tie);
	expect("two changes with one timestamp out of order are taken in the order that chains", 0, 1, "exclusive");
	feed("exclusive", untied);
	expect("the same two with two timestamps break the chain, twice", 2, 0, "mapcount");
	feed("exclusive", broken);
	expect("a lost change breaks the chain", 1, 0, "exclusive");
	feed("exclusive", same);
	expect("a non-change counts", 1, 0, "exclusive");
	return cases_failed ? 1 : 0;
}
