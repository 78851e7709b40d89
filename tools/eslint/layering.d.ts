// Types of the local ESLint layering rule (tools/eslint/layering.js).
import type { ESLint, Rule } from 'eslint';

export const LAYERS: Record<string, string[]>;
export const ADAPTER_ONLY: Record<string, string[]>;
export const COMPOSITION_ROOTS: Record<string, string[]>;
export const NO_NODE: string[];
export const SERVICES_APART: Record<string, string[]>;
export const layeringRule: Rule.RuleModule;
export const localPlugin: ESLint.Plugin;
