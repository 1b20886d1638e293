/** Field limits of workspaces that their write messages carry (the rest stays in libs/workspaces). */
export const WORKSPACE_NAME_MAX = 200;
export const WORKSPACE_DESCRIPTION_MAX = 2000;
export const VISIBILITIES = ['private', 'public'] as const;
