/*
 * What the commands report from a finished comparison, decided here rather
 * than by each command: the worst result of a level of the document and the
 * accept label of a pull request (a bisect step's outcome is bisect.c's). Pure,
 * on the plain types of common/types.h. Part of the judge module: see
 * judge.h.
 */
#include "judge/judge.h"

#include "common/banned.h"

enum result_state judge_worst(const enum result_state *results, size_t n)
{
	enum result_state worst = RESULT_PASS;
	size_t i;

	for (i = 0; i < n; i++)
		if (results[i] > worst)
			worst = results[i];
	return worst;
}

enum result_state judge_accept(struct comparison *cmp, size_t n_cmp,
			       const struct budget_result *budgets, size_t n_budgets,
			       enum result_state result)
{
	bool changed = false;
	size_t m;

	for (m = 0; m < n_cmp; m++)
		if (cmp[m].verdict == VERDICT_REGRESSION) {
			cmp[m].accepted = true;
			changed = true;
		}
	if (!changed || result != RESULT_REGRESSION)
		return result;
	return judge_command_result(cmp, n_cmp, budgets, n_budgets);
}

enum result_state judge_accepted_parent(enum result_state parent, enum result_state worst_child)
{
	return parent == RESULT_REGRESSION ? worst_child : parent;
}
