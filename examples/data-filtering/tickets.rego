# Which help-desk tickets a user may see: a data filter. The application asks
# gavel's Compile API (POST /v1/compile/tickets/include) with the user as input;
# the ticket's columns (input.tickets.*) are unknown, so what comes back is the
# condition on them, as an SQL WHERE clause the application adds to its query.

# METADATA
# description: A ticket the user may see.
# compile:
#   unknowns: [input.tickets]
package tickets

# Agents of a tenant see what is assigned to them, open or not.
include if {
	same_tenant
	input.tickets.assignee == input.user.name
}

# Everyone sees the tickets they opened, unless closed.
include if {
	same_tenant
	input.tickets.owner == input.user.name
	not input.tickets.status == "closed"
}

# Leads see the tenant's urgent work that is still waiting.
include if {
	input.user.role == "lead"
	same_tenant
	input.tickets.status in {"open", "pending"}
	input.tickets.priority >= 3
}

# Public tickets are shown to the whole tenant.
include if {
	same_tenant
	input.tickets.public == 1
}

same_tenant if input.tickets.tenant == input.user.tenant
