/*
 * results_equal(): two documents hold the same values. Doubles are compared
 * bit for bit, strings by content (NULL equals only NULL), and a value that
 * its flag says is absent (has_actual false, present false...) is not
 * compared: that is exactly what the JSON form keeps, so a document read back
 * from its own JSON compares equal to the original.
 */
#include "results/results.h"

#include <string.h>

#include "common/banned.h"

static bool same_double(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static bool same_str(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static bool same_error(const struct results_error *a, const struct results_error *b)
{
	if (a->present != b->present)
		return false;
	if (!a->present)
		return true;
	return a->kind == b->kind && same_str(a->message, b->message) &&
	       a->has_exit_code == b->has_exit_code &&
	       (!a->has_exit_code || a->exit_code == b->exit_code) &&
	       same_str(a->stderr_tail, b->stderr_tail) && a->has_metric == b->has_metric &&
	       (!a->has_metric || a->metric == b->metric);
}

static bool same_stats(const struct stats_summary *a, const struct stats_summary *b)
{
	size_t i;

	if (a->count != b->count || !same_double(a->min, b->min) || !same_double(a->max, b->max) ||
	    !same_double(a->mean, b->mean) || !same_double(a->median, b->median) ||
	    !same_double(a->stddev, b->stddev) || !same_double(a->cv, b->cv) ||
	    !same_double(a->robust_cv, b->robust_cv) || a->n_percentiles != b->n_percentiles)
		return false;
	for (i = 0; i < a->n_percentiles; i++)
		if (!same_double(a->percentiles[i].p, b->percentiles[i].p) ||
		    !same_double(a->percentiles[i].value, b->percentiles[i].value))
			return false;
	return true;
}

static bool same_work(const struct results_work *a, const struct results_work *b)
{
	if (a->present != b->present)
		return false;
	if (!a->present)
		return true;
	return a->has_value == b->has_value && (!a->has_value || same_double(a->value, b->value)) &&
	       same_str(a->file_size, b->file_size) && same_str(a->unit, b->unit) &&
	       same_double(a->measured_min, b->measured_min) &&
	       same_double(a->measured_max, b->measured_max);
}

static bool same_trend(const struct results_trend *a, const struct results_trend *b)
{
	if (a->present != b->present)
		return false;
	return !a->present ||
	       (same_double(a->slope, b->slope) && same_double(a->slope_low, b->slope_low) &&
		same_double(a->slope_high, b->slope_high) &&
		same_double(a->min_detectable_slope, b->min_detectable_slope) &&
		a->growing == b->growing);
}

static bool same_metric(const struct results_metric *a, const struct results_metric *b)
{
	size_t i;

	if (a->metric != b->metric || a->status != b->status || !same_str(a->reason, b->reason) ||
	    a->source != b->source || a->process_aggregation != b->process_aggregation ||
	    a->has_stats != b->has_stats || (a->has_stats && !same_stats(&a->stats, &b->stats)) ||
	    a->n_samples != b->n_samples || !same_work(&a->work, &b->work) ||
	    a->has_floor != b->has_floor || !same_trend(&a->trend, &b->trend))
		return false;
	if (a->has_floor &&
	    (a->floor_bytes != b->floor_bytes || a->samples_at_floor != b->samples_at_floor))
		return false;
	if (!same_str(a->counter_backend, b->counter_backend) ||
	    !same_str(a->counter_version, b->counter_version) ||
	    !same_str(a->counter_event, b->counter_event))
		return false;
	if (a->has_elf != b->has_elf ||
	    (a->has_elf && (a->elf_text != b->elf_text || a->elf_data != b->elf_data ||
			    a->elf_bss != b->elf_bss)))
		return false;
	for (i = 0; i < a->n_samples; i++)
		if (!same_double(a->samples[i], b->samples[i]))
			return false;
	return true;
}

static bool same_doubles(const double *a, const double *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!same_double(a[i], b[i]))
			return false;
	return true;
}

static bool same_harness_metric(const struct results_harness_metric *a,
				const struct results_harness_metric *b)
{
	return same_str(a->name, b->name) && same_str(a->unit, b->unit) && a->better == b->better &&
	       a->n_values == b->n_values && a->n_raw == b->n_raw &&
	       same_doubles(a->values, b->values, a->n_values) &&
	       same_doubles(a->raw, b->raw, a->n_raw) &&
	       (!a->n_values ||
		!memcmp(a->raw_counts, b->raw_counts, a->n_values * sizeof(*a->raw_counts)));
}

static bool same_side(const struct results_side *a, const struct results_side *b)
{
	size_t i;
	int m;

	if (a->present != b->present)
		return false;
	if (!a->present)
		return true;
	if (a->count != b->count || a->warmups != b->warmups || a->plan != b->plan ||
	    !same_error(&a->error, &b->error) || a->n_times != b->n_times)
		return false;
	if (a->n_times &&
	    (memcmp(a->run_start_ns, b->run_start_ns, a->n_times * sizeof(uint64_t)) ||
	     memcmp(a->run_end_ns, b->run_end_ns, a->n_times * sizeof(uint64_t))))
		return false;
	for (m = 0; m < METRIC__COUNT; m++)
		if (!same_metric(&a->metrics[m], &b->metrics[m]))
			return false;
	if (a->n_harness_metrics != b->n_harness_metrics)
		return false;
	for (i = 0; i < a->n_harness_metrics; i++)
		if (!same_harness_metric(&a->harness_metrics[i], &b->harness_metrics[i]))
			return false;
	return true;
}

static bool same_comparison(const struct comparison *a, const struct comparison *b)
{
	if (a->has_estimate != b->has_estimate ||
	    (a->has_estimate && (!same_double(a->change_percent, b->change_percent) ||
				 !same_double(a->ci_low_percent, b->ci_low_percent) ||
				 !same_double(a->ci_high_percent, b->ci_high_percent))))
		return false;
	if (a->has_min_difference != b->has_min_difference ||
	    (a->has_min_difference && !same_double(a->min_difference, b->min_difference)))
		return false;
	if (a->band_low_infinite != b->band_low_infinite ||
	    (!a->band_low_infinite && !same_double(a->band_low_percent, b->band_low_percent)))
		return false;
	if (a->has_detectable_high != b->has_detectable_high ||
	    (a->has_detectable_high &&
	     !same_double(a->detectable_high_percent, b->detectable_high_percent)) ||
	    a->has_detectable_low != b->has_detectable_low ||
	    (a->has_detectable_low &&
	     !same_double(a->detectable_low_percent, b->detectable_low_percent)) ||
	    a->pairs_to_decide != b->pairs_to_decide ||
	    a->pairs_to_decide_beyond != b->pairs_to_decide_beyond || a->noisy != b->noisy)
		return false;
	return a->metric == b->metric && a->derived == b->derived &&
	       a->statistic_shown == b->statistic_shown && same_double(a->base, b->base) &&
	       same_double(a->head, b->head) && same_double(a->confidence, b->confidence) &&
	       a->looks_planned == b->looks_planned && a->looks_used == b->looks_used &&
	       a->pairs == b->pairs && same_double(a->max_fraction, b->max_fraction) &&
	       same_double(a->band_high_percent, b->band_high_percent) &&
	       a->verdict == b->verdict && !strcmp(a->reason, b->reason) && a->gate == b->gate &&
	       a->accepted == b->accepted && a->counts == b->counts &&
	       a->runs_fixed == b->runs_fixed &&
	       (!a->counts || same_double(a->spread_percent, b->spread_percent));
}

static bool same_budget(const struct results_budget *a, const struct results_budget *b)
{
	const struct budget_result *x = &a->result, *y = &b->result;

	if (x->aggregation.kind != y->aggregation.kind ||
	    (x->aggregation.kind == AGG_PERCENTILE &&
	     !same_double(x->aggregation.percentile, y->aggregation.percentile)))
		return false;
	if (x->has_actual != y->has_actual || (x->has_actual && !same_double(x->actual, y->actual)))
		return false;
	return x->metric == y->metric && x->op == y->op && same_double(x->limit, y->limit) &&
	       x->status == y->status && !strcmp(x->reason, y->reason) &&
	       same_str(a->text, b->text);
}

static bool same_strs(char *const *a, size_t na, char *const *b, size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (!same_str(a[i], b[i]))
			return false;
	return true;
}

static bool same_command(const struct results_command *a, const struct results_command *b)
{
	size_t i;

	if (!same_str(a->name, b->name) || !same_str(a->command, b->command) ||
	    !same_str(a->harness.format, b->harness.format) ||
	    !same_str(a->harness.command, b->harness.command) ||
	    !same_str(a->harness.benchmark, b->harness.benchmark) ||
	    !same_strs(a->harness.select, a->harness.n_select, b->harness.select,
		       b->harness.n_select) ||
	    !same_strs(a->harness.args, a->harness.n_args, b->harness.args, b->harness.n_args) ||
	    a->harness.filtered_after != b->harness.filtered_after ||
	    !same_str(a->harness.filter, b->harness.filter) || a->result != b->result ||
	    !same_side(&a->head, &b->head) || !same_side(&a->base, &b->base) ||
	    a->has_vs_baseline != b->has_vs_baseline ||
	    (a->has_vs_baseline && !same_double(a->vs_baseline, b->vs_baseline)) ||
	    a->has_vs_fastest != b->has_vs_fastest ||
	    (a->has_vs_fastest && !same_double(a->vs_fastest, b->vs_fastest)) ||
	    a->n_comparisons != b->n_comparisons || a->n_budgets != b->n_budgets ||
	    a->line != b->line)
		return false;
	for (i = 0; i < a->n_comparisons; i++)
		if (!same_comparison(&a->comparisons[i], &b->comparisons[i]))
			return false;
	for (i = 0; i < a->n_budgets; i++)
		if (!same_budget(&a->budgets[i], &b->budgets[i]))
			return false;
	return true;
}

static bool same_case(const struct results_benchmark *a, const struct results_benchmark *b)
{
	size_t i;

	if (!same_str(a->base_name, b->base_name) || a->n_params != b->n_params ||
	    a->has_size != b->has_size || (a->has_size && !same_double(a->size, b->size)) ||
	    a->long_run != b->long_run)
		return false;
	for (i = 0; i < a->n_params; i++)
		if (!same_str(a->params[i].name, b->params[i].name) ||
		    !same_str(a->params[i].value, b->params[i].value))
			return false;
	return true;
}

static bool same_fit(const struct results_fit *a, const struct results_fit *b)
{
	if (a->present != b->present)
		return false;
	return !a->present ||
	       (same_double(a->exponent, b->exponent) &&
		same_double(a->coefficient, b->coefficient) && a->has_constant == b->has_constant &&
		(!a->has_constant || same_double(a->constant, b->constant)) &&
		same_double(a->r_squared, b->r_squared) && a->has_interval == b->has_interval &&
		(!a->has_interval || (same_double(a->exponent_low, b->exponent_low) &&
				      same_double(a->exponent_high, b->exponent_high))) &&
		a->sizes == b->sizes && a->runs == b->runs && same_str(a->from, b->from) &&
		same_str(a->to, b->to));
}

static bool same_growth_verdicts(const struct results_growth *a, const struct results_growth *b)
{
	if (a->has_budget != b->has_budget || a->compared != b->compared)
		return false;
	if (a->has_budget &&
	    (!same_str(a->budget_text, b->budget_text) || a->budget_op != b->budget_op ||
	     !same_double(a->budget_limit, b->budget_limit) || a->budget_pass != b->budget_pass))
		return false;
	return !a->compared ||
	       (same_double(a->difference, b->difference) &&
		same_double(a->difference_low, b->difference_low) &&
		same_double(a->difference_high, b->difference_high) &&
		same_double(a->max_difference, b->max_difference) && a->verdict == b->verdict);
}

static bool same_growth(const struct results_suite *a, const struct results_suite *b)
{
	size_t i;

	if (a->n_growth != b->n_growth || a->n_not_compared != b->n_not_compared)
		return false;
	for (i = 0; i < a->n_not_compared; i++)
		if (!same_str(a->not_compared[i].benchmark, b->not_compared[i].benchmark) ||
		    !same_str(a->not_compared[i].reason, b->not_compared[i].reason))
			return false;
	for (i = 0; i < a->n_growth; i++)
		if (!same_str(a->growth[i].benchmark, b->growth[i].benchmark) ||
		    !same_str(a->growth[i].command, b->growth[i].command) ||
		    a->growth[i].metric != b->growth[i].metric ||
		    !same_fit(&a->growth[i].head, &b->growth[i].head) ||
		    !same_fit(&a->growth[i].base, &b->growth[i].base) ||
		    !same_growth_verdicts(&a->growth[i], &b->growth[i]))
			return false;
	return true;
}

static bool same_benchmark(const struct results_benchmark *a, const struct results_benchmark *b)
{
	size_t i;

	if (!same_case(a, b))
		return false;

	if (!same_str(a->name, b->name) || !same_str(a->description, b->description) ||
	    a->n_tags != b->n_tags || !same_str(a->baseline, b->baseline) ||
	    a->rounds != b->rounds || a->schedule != b->schedule ||
	    a->time_budget_ran_out != b->time_budget_ran_out || a->result != b->result ||
	    !same_error(&a->error, &b->error) || a->n_commands != b->n_commands ||
	    a->line != b->line)
		return false;
	for (i = 0; i < a->n_tags; i++)
		if (!same_str(a->tags[i], b->tags[i]))
			return false;
	for (i = 0; i < a->n_commands; i++)
		if (!same_command(&a->commands[i], &b->commands[i]))
			return false;
	return true;
}

static bool same_suite(const struct results_suite *a, const struct results_suite *b)
{
	size_t i;

	if (!same_str(a->name, b->name) || !same_str(a->description, b->description) ||
	    !same_str(a->file, b->file) || a->result != b->result ||
	    !same_error(&a->error, &b->error) || a->new_in_head != b->new_in_head ||
	    a->shared_artifact != b->shared_artifact || a->n_benchmarks != b->n_benchmarks ||
	    a->error_conclusion_neutral != b->error_conclusion_neutral ||
	    a->has_geometric_mean != b->has_geometric_mean ||
	    !same_str(a->geometric_mean_unavailable, b->geometric_mean_unavailable) ||
	    a->commit.present != b->commit.present ||
	    (a->commit.present && (!same_str(a->commit.sha, b->commit.sha) ||
				   !same_str(a->commit.subject, b->commit.subject) ||
				   a->commit.time_unix_ns != b->commit.time_unix_ns ||
				   a->commit.index != b->commit.index ||
				   !same_str(a->commit.suite_hash, b->commit.suite_hash))))
		return false;
	for (i = 0; i < a->n_benchmarks; i++)
		if (!same_benchmark(&a->benchmarks[i], &b->benchmarks[i]))
			return false;
	if (!same_growth(a, b))
		return false;
	if (!a->has_geometric_mean)
		return true;
	if (!same_str(a->geometric_mean_reference, b->geometric_mean_reference) ||
	    a->geometric_mean_cases != b->geometric_mean_cases ||
	    a->n_geometric_mean_values != b->n_geometric_mean_values)
		return false;
	for (i = 0; i < a->n_geometric_mean_values; i++)
		if (!same_str(a->geometric_mean_values[i].command,
			      b->geometric_mean_values[i].command) ||
		    !same_double(a->geometric_mean_values[i].ratio,
				 b->geometric_mean_values[i].ratio))
			return false;
	return true;
}

static bool same_environment(const struct results_environment *a,
			     const struct results_environment *b)
{
	size_t i;

	if (!same_str(a->os, b->os) || !same_str(a->arch, b->arch) ||
	    !same_str(a->kernel, b->kernel) || !same_str(a->cpu_model, b->cpu_model) ||
	    a->logical_cpus != b->logical_cpus || !same_str(a->compiler, b->compiler) ||
	    !same_str(a->libc, b->libc) || !same_str(a->ci, b->ci) || a->n_tools != b->n_tools)
		return false;
	for (i = 0; i < a->n_tools; i++)
		if (!same_str(a->tools[i].name, b->tools[i].name) ||
		    !same_str(a->tools[i].version, b->tools[i].version))
			return false;
	return true;
}

static bool same_sweep(const struct results_sweep *a, const struct results_sweep *b)
{
	if (a->present != b->present)
		return false;
	return !a->present ||
	       (same_str(a->range, b->range) && same_str(a->reference, b->reference) &&
		same_str(a->settings_hash, b->settings_hash) && a->shard_index == b->shard_index &&
		a->shard_count == b->shard_count && a->commits == b->commits);
}

static bool same_calibration(const struct results_calibration *a,
			     const struct results_calibration *b)
{
	size_t i;

	if (a->present != b->present || a->n_rows != b->n_rows ||
	    a->separate_builds != b->separate_builds || a->both_schedules != b->both_schedules ||
	    !same_str(a->recommended_schedule, b->recommended_schedule) ||
	    !same_str(a->duet_not_measured, b->duet_not_measured))
		return false;
	for (i = 0; i < a->n_rows; i++) {
		const struct results_calibration_row *x = &a->rows[i], *y = &b->rows[i];
		if (!same_str(x->benchmark, y->benchmark) || !same_str(x->command, y->command) ||
		    x->metric != y->metric || x->max_pairs != y->max_pairs ||
		    x->has_detectable != y->has_detectable ||
		    (x->has_detectable &&
		     !same_double(x->detectable_percent, y->detectable_percent)) ||
		    x->schedule_pairs != y->schedule_pairs ||
		    !same_str(x->schedules_note, y->schedules_note) ||
		    (x->schedule_pairs &&
		     (!same_double(x->interleaved_half_width_percent,
				   y->interleaved_half_width_percent) ||
		      !same_double(x->duet_half_width_percent, y->duet_half_width_percent))))
			return false;
	}
	return true;
}

static bool same_git(const struct results_git *a, const struct results_git *b)
{
	if (a->present != b->present)
		return false;
	return !a->present ||
	       (same_str(a->head_sha, b->head_sha) && a->dirty == b->dirty &&
		same_str(a->base_ref, b->base_ref) && same_str(a->base_sha, b->base_sha) &&
		same_str(a->base_source, b->base_source) && same_str(a->status_sha, b->status_sha));
}

static bool same_noise(const struct results_noise *a, const struct results_noise *b)
{
	if (a->has_load_average != b->has_load_average ||
	    (a->has_load_average && (!same_double(a->load_average_1m, b->load_average_1m) ||
				     !same_double(a->load_average_5m, b->load_average_5m) ||
				     !same_double(a->load_average_15m, b->load_average_15m))))
		return false;
	if (a->has_steal != b->has_steal ||
	    (a->has_steal && !same_double(a->steal_percent, b->steal_percent)))
		return false;
	return same_str(a->governor, b->governor) && a->noisy == b->noisy &&
	       same_str(a->reason, b->reason);
}

static bool same_summary(const struct results_summary *a, const struct results_summary *b)
{
	int i;

	for (i = 0; i < RESULTS_RESULT_STATES; i++)
		if (a->results[i] != b->results[i])
			return false;
	return a->suites == b->suites && a->benchmarks == b->benchmarks &&
	       a->commands == b->commands && a->not_gated.pass == b->not_gated.pass &&
	       a->not_gated.improved == b->not_gated.improved &&
	       a->not_gated.inconclusive == b->not_gated.inconclusive &&
	       a->not_gated.regression == b->not_gated.regression && a->skipped == b->skipped &&
	       a->new_suites == b->new_suites &&
	       a->accepted_regressions == b->accepted_regressions &&
	       a->fail_on_inconclusive == b->fail_on_inconclusive && a->exit_code == b->exit_code &&
	       a->interrupted == b->interrupted;
}

bool results_equal(const struct results *a, const struct results *b)
{
	size_t i;

	if (a->mode != b->mode || !same_str(a->himorime_version, b->himorime_version) ||
	    a->seed != b->seed || a->max_total_time_ns != b->max_total_time_ns ||
	    a->started_at_unix_ns != b->started_at_unix_ns ||
	    a->finished_at_unix_ns != b->finished_at_unix_ns ||
	    !same_environment(&a->environment, &b->environment) || !same_git(&a->git, &b->git) ||
	    !same_noise(&a->noise, &b->noise) || a->n_suites != b->n_suites ||
	    !same_summary(&a->summary, &b->summary) || !same_sweep(&a->sweep, &b->sweep) ||
	    !same_calibration(&a->calibration, &b->calibration))
		return false;
	for (i = 0; i < a->n_suites; i++)
		if (!same_suite(&a->suites[i], &b->suites[i]))
			return false;
	return true;
}
