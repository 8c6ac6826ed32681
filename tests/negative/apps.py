"""The negative set's apps (README.md): TUNING may be read by whoever designs inference's rules,
HELD_OUT only counted (drawn at random once, before anything was measured on the set)."""

TUNING = ("approval_workflow", "job_runner", "report_pipeline", "store_orders", "tool_rental")
HELD_OUT = ("agent_crm", "helpdesk_chat", "model_registry")
