// Makes the embedded database template (see embeddedTemplateDir) unless it exists.
import 'reflect-metadata';
import { makeEmbeddedTemplate } from '../src/db/orm.js';
import { ENTITIES } from '../src/domains/entities.js';

console.log(await makeEmbeddedTemplate(ENTITIES));
