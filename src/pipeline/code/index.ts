// Public API of the code module: formatting, description conversion, step reduction, parsing.
export { pyRepr, pyReprFloat, pyReprStr, pyRound4 } from '../../shared/python/py-format';
export { callsToCode, isComputerCall, toCommand } from '../../shared/python/to-command';
export { descriptionToCalls } from './description-to-calls';
export { descriptionType } from './description-type';
export type { DescriptionType } from './description-type';
export { stage1Description } from './stage1-description';
export type { Stage1Row } from './stage1-description';
export { reduceActions } from './reduce-actions';
export { reduceContent } from './reduce-content';
export type { ContentStep } from './reduce-content';
export { parseCode } from './parse-code';
export type { ScreenSize } from './screen-size';
export type { ScrollTick } from './scroll-calls';
export { pyFloat, pyInt } from '../../shared/python/py-value';
