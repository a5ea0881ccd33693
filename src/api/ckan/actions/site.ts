import { siteSettings } from '../../../domain/site.ts';
import { invalidParameters, notFound } from '../../../domain/errors.ts';
import { licenseList as licenses } from '../package-dict.ts';
import type { Action } from './action.ts';
import type { Config } from '../../../config.ts';
import { ckanSiteUrl } from '../envelope.ts';

/** status_show, site_read, license_list, help_show. */

/** The CKAN API version this one follows, which clients read to pick their code paths. */
export const CKAN_COMPATIBLE_VERSION = '2.10.0';

export const statusShow = (config: Config): Action => ({
  help: 'The site: title, URL, the CKAN version whose API this one follows, and the extensions it emulates.',
  async run() {
    const site = siteSettings(config);
    return {
      site_title: site.siteName,
      site_description: '',
      site_url: ckanSiteUrl(config),
      ckan_version: CKAN_COMPATIBLE_VERSION,
      almanac_version: site.version,
      error_emails_to: null,
      locale_default: 'en',
      extensions: ['datastore'],
    };
  },
});

export const siteRead: Action = { help: 'Whether the site can be read: always true.', run: async () => true };

export const licenseList: Action = {
  help: 'The licenses a dataset’s license_id may name, with their titles, URLs and openness.',
  run: async () => licenses(),
};

/** help_show over a table of actions; an unknown name is 404 Not Found as in CKAN. */
export const helpShow = (actions: () => Record<string, Action>): Action => ({
  help: 'The help text of an action: help_show name=<action>.',
  async run({ params }) {
    const name = params.string('name');
    params.check();
    if (!name) throw invalidParameters([{ path: 'name', message: 'Missing value' }]);
    const action = Object.hasOwn(actions(), name) ? actions()[name] : undefined;
    if (!action) throw notFound(`Action "${name}"`);
    return action.help;
  },
});
