/** What the dashboard is, in its header and every page's title: the platform's, finance and content alike. */
export const PRODUCT = 'Platform dashboard';
