package io.deltasink.proc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import javax.management.Attribute;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The MBeans of a worker JVM read over remote JMX, as an operator's JMX console or exporter reads
 * Connect's metrics: the worker is started with {@link #jvmArgs()} (the JVM's JMX agent on a free
 * loopback port, without authentication or TLS) and each read opens a connection of its own.
 */
final class WorkerJmx {
    private final int port = WorkerProcess.freePort();

    /** JVM options that open the worker's JMX agent on this port, on the loopback address only. */
    List<String> jvmArgs() {
        return List.of("-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
    }

    /**
     * The attributes of every MBean {@code kafka.connect:type=<type>} of task {@code task} of
     * {@code connector}, by attribute name (Kafka's metrics are numbers, as doubles); empty when
     * there is no such MBean.
     */
    Map<String, Object> taskMetrics(String type, String connector, int task) throws IOException {
        try (JMXConnector jmx = connect()) {
            MBeanServerConnection server = jmx.getMBeanServerConnection();
            Map<String, Object> out = new TreeMap<>();
            for (ObjectName name : server.queryNames(new ObjectName("kafka.connect:type=" + type + ",*"), null)) {
                if (connector.equals(value(name, "connector")) && Integer.toString(task).equals(value(name, "task"))) {
                    out.putAll(attributes(server, name));
                }
            }
            return out;
        } catch (JMException e) {
            throw new IllegalStateException("Cannot read the " + type + " metrics of " + connector + " over JMX", e);
        }
    }

    /**
     * Every attribute whose name starts with {@code prefix}, of every MBean of the domains whose
     * name starts with {@code domainPrefix}, as "object name: attribute".
     */
    Set<String> attributesNamed(String domainPrefix, String prefix) throws IOException {
        try (JMXConnector jmx = connect()) {
            MBeanServerConnection server = jmx.getMBeanServerConnection();
            Set<String> out = new TreeSet<>();
            for (ObjectName name : server.queryNames(null, null)) {
                if (!name.getDomain().startsWith(domainPrefix)) {
                    continue;
                }
                for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
                    if (a.getName().startsWith(prefix)) {
                        out.add(name + ": " + a.getName());
                    }
                }
            }
            return out;
        } catch (JMException e) {
            throw new IllegalStateException("Cannot list the MBeans of the worker over JMX", e);
        }
    }

    private JMXConnector connect() throws IOException {
        return JMXConnectorFactory.connect(
                new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi"));
    }

    private static Map<String, Object> attributes(MBeanServerConnection server, ObjectName name)
            throws IOException, JMException {
        List<String> names = new ArrayList<>();
        for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
            names.add(a.getName());
        }
        Map<String, Object> out = new TreeMap<>();
        for (Attribute a : server.getAttributes(name, names.toArray(String[]::new)).asList()) {
            out.put(a.getName(), a.getValue());
        }
        return out;
    }

    /** A key property of an object name, unquoted when Kafka quoted it. */
    private static String value(ObjectName name, String key) {
        String v = name.getKeyProperty(key);
        return v != null && v.startsWith("\"") ? ObjectName.unquote(v) : v;
    }
}
