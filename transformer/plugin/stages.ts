// The stage names for the command line, without loading the compiler (`tsad --help`).
export { STAGES, type Stage } from '../stageNames';
