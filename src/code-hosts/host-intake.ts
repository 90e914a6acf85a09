import type { IntakeRules } from '../repositories/webhook-intake-repository.js';

/**
 * A host's intake rules (decisions.md §8, §12): who owns a delivery's pull request, what a
 * delivery nobody owns is told, where the host's pull-request keys are allocated, and whether its
 * repositories are linked to their owner. Each host gives its own, in its folder
 * (`code-hosts/<host>/<host>-intake.ts`); the registry lists them, and the intake statement
 * (`repositories/webhook-intake-repository.ts`) is written once around them, so a batch of any
 * hosts' deliveries is still stored in one durable, idempotent statement.
 *
 * `ownership` is the one place that says who owns a host's pull request: an owner by organization
 * extends that one expression.
 */
export type HostIntakeRules = IntakeRules;
