/* Room for the contact reports (solver/contact_report.h), shared by both
 * solvers: the step's totals beside the bundles and an entry per contact
 * id. Grows only with the world, like the rest of the scratch. */
#include "solver/contact_report.h"

#include "base/array.h"

bool ts_contact_report_reserve(ts_contact_report *r, const ts_records *records, void **totals, int32_t *total_bytes,
                               int32_t bytes_needed)
{
    bool ok = !r->impulses || ts_array_reserve(&records->allocator, totals, total_bytes, bytes_needed, 1);
    if (ok && r->capacity < records->contact_capacity) {
        int32_t old = r->capacity;
        ok = ts_array_reserve(&records->allocator, (void **)&r->entries, &r->capacity, records->contact_capacity,
                              sizeof(ts_contact_report_entry));
        for (int32_t i = old; ok && i < r->capacity; ++i) {
            r->entries[i] = (ts_contact_report_entry){.step = -1, .hit_point = -1};
        }
    }
    return ok;
}
