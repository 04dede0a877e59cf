/* A colour's contacts grouped by point count (see contact_order.h). */
#include "contact_order.h"

#include "../world.h"

static int group_of(const ts_contact_store *s, int32_t contact)
{
    return TS_CONTACT_POINTS - s->point_count[s->table.slot_of_id[contact]];
}

void ts_contact_order_color(const ts_world *world, const ts_graph_color *color, int32_t *ordered)
{
    const ts_contact_store *s = &world->contact_store;
    int32_t next[TS_CONTACT_POINTS + 1] = {0};
    for (int32_t i = 0; i < color->count; ++i) {
        ++next[group_of(s, color->contacts[i])];
    }
    int32_t start = 0;
    for (int g = 0; g <= TS_CONTACT_POINTS; ++g) {
        int32_t size = next[g];
        next[g] = start;
        start += size;
    }
    for (int32_t i = 0; i < color->count; ++i) {
        int32_t contact = color->contacts[i];
        ordered[next[group_of(s, contact)]++] = contact;
    }
}
